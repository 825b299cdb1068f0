"""``--read written``: every term reads the MT outputs with a tokeniser's marks undone, the
signature says so, natural text scores as given, and word scores refuse it."""
from __future__ import annotations

import json

import numpy as np

from alignment.judgments.benchmark import Benchmark
from alignment.judgments.benchmark_rows import score_benchmark
from alignment.judgments.row_spec import EncoderRow
from alignment.judgments.segments import JudgedSegments
from alignment.xmover.written import as_written
from tests.conftest import EN, ES
from train.cli import main

TOKENISED = ["the cat &apos;s bowl , he said .", "i don &apos;t know ( yet ) .",
             "a 10 @-@ year plan , not more .", "she said : &quot; no &quot; ."]


def _score(capsys, tiny_bert, src: str, hyp: str, *flags: str) -> dict:
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", src, "--hyp", hyp,
                 "--format", "json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_written_reading_scores_the_detokenised_output_and_signs_it(tmp_path, tiny_bert, capsys):
    (tmp_path / "src.es").write_text("".join(s + "\n" for s in ES[:4]))
    (tmp_path / "mt.en").write_text("".join(t + "\n" for t in TOKENISED))
    written = [as_written(t, s) for s, t in zip(ES[:4], TOKENISED)]
    (tmp_path / "written.en").write_text("".join(t + "\n" for t in written))
    src = str(tmp_path / "src.es")
    read = _score(capsys, tiny_bert, src, str(tmp_path / "mt.en"), "--read", "written")
    given = _score(capsys, tiny_bert, src, str(tmp_path / "mt.en"))
    by_hand = _score(capsys, tiny_bert, src, str(tmp_path / "written.en"))
    np.testing.assert_allclose(read["segments"], by_hand["segments"], atol=1e-6)
    assert not np.allclose(read["segments"], given["segments"])
    assert "|read:written:moses1" in read["signature"] and "read:" not in given["signature"]


def test_natural_text_scores_the_same_either_way(tmp_path, tiny_bert, capsys):
    (tmp_path / "src.es").write_text("".join(s + "\n" for s in ES[:4]))
    (tmp_path / "mt.en").write_text("".join(t + "\n" for t in EN[:4]))
    src, mt = str(tmp_path / "src.es"), str(tmp_path / "mt.en")
    np.testing.assert_allclose(_score(capsys, tiny_bert, src, mt, "--read", "written")["segments"],
                               _score(capsys, tiny_bert, src, mt)["segments"])


def test_word_scores_refuse_the_written_reading(tmp_path, tiny_bert, capsys):
    (tmp_path / "src.es").write_text(ES[0] + "\n")
    (tmp_path / "mt.en").write_text(TOKENISED[0] + "\n")
    assert main(["score", "--encoder", str(tiny_bert), "--src", str(tmp_path / "src.es"),
                 "--hyp", str(tmp_path / "mt.en"), "--words", "--read", "written"]) == 2
    assert "parameter 'read'" in capsys.readouterr().err


def test_a_benchmark_row_and_its_lm_read_the_outputs_alike(tiny_bert, tiny_gpt2):
    human = np.arange(4, dtype=float)
    data = JudgedSegments(["es-en"] * 4, ES[:4], TOKENISED, human)
    ready = JudgedSegments(["es-en"] * 4, ES[:4], [as_written(t, s) for s, t in zip(ES, TOKENISED)],
                           human)
    bench = Benchmark("toy", "toy", lambda *a: data, ("es-en",))
    row = [EncoderRow("tiny", {"*": str(tiny_bert)})]

    def scores(segments, read):
        got = score_benchmark(bench, segments, row, {"layer": 2, "read": read}, str(tiny_gpt2),
                              0.1, with_baselines=False, resamples=2, log=lambda m: None)
        return {r.label: r.scores for r in got.rows}

    read, by_hand = scores(data, "written"), scores(ready, "given")
    for label in ("tiny", "LM alone", "tiny ⊕ LM"):
        np.testing.assert_allclose(read[label], by_hand[label], atol=1e-6)
    assert not np.allclose(scores(data, "given")["LM alone"], read["LM alone"])
