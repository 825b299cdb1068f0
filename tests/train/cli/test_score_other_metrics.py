"""``crossalign score --metric``: MoverScore, BaryScore and BERTScore over the same encoder or
export, against references (``--ref``) or the sources; their preprocessing options signed; what
they cannot take refused before anything loads."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import EN, ES


def _files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, lines in (("ref.en", EN[1:6]), ("hyp.en", EN[:5]), ("src.es", ES[:5])):
        out[name] = tmp_path / name
        out[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _score(capsys, *argv: str) -> dict:
    from train.cli import main

    assert main(["score", *argv, "--format", "json", "-q", "--device", "cpu"]) == 0
    return json.loads(capsys.readouterr().out)


def test_against_a_reference_it_is_the_library_metric(tmp_path, tiny_bert, capsys):
    from alignment.metrics import MoverScore

    f = _files(tmp_path)
    got = _score(capsys, "--encoder", str(tiny_bert), "--metric", "moverscore-v2", "--ref",
                 str(f["ref.en"]), "--hyp", str(f["hyp.en"]))
    want = MoverScore(str(tiny_bert), "v2").score(EN[:5], references=EN[1:6])
    np.testing.assert_allclose(got["segments"], want.scores, rtol=0, atol=1e-12)
    assert got["signature"] == want.signature and got["signature"].endswith("|form:ref")


def test_reference_free_through_an_export_applies_its_map(tmp_path, tiny_bert, capsys):
    from tests.alignment.test_export import _export

    _export(tmp_path, tiny_bert, "clp")
    f = _files(tmp_path)
    got = _score(capsys, "--encoder", str(tmp_path / "exp"), "--metric", "baryscore",
                 "--src", str(f["src.es"]), "--hyp", str(f["hyp.en"]))
    assert got["n"] == 5 and "|map:none|" not in got["signature"]
    assert got["signature"].endswith("|form:src")


def test_each_preprocessing_option_is_in_the_signature(tmp_path, tiny_bert, capsys):
    f = _files(tmp_path)
    stop = tmp_path / "stop.txt"
    stop.write_text("the a of\n", encoding="utf-8")
    base = ["--encoder", str(tiny_bert), "--metric", "moverscore-v1", "--layers", "1", "2",
            "--ref", str(f["ref.en"]), "--hyp", str(f["hyp.en"])]
    signatures = [_score(capsys, *base, *extra)["signature"] for extra in (
        [], ["--subwords", "all"], ["--punctuation", "keep"], ["--stopwords", str(stop)],
        ["--idf", "none"], ["--lowercase"], ["--ngram", "2"], ["--preprocessing", "baryscore"])]
    assert len(set(signatures)) == len(signatures)
    assert "set:ngram=1" in signatures[0]  # v1's published n-gram when --ngram is not given


def test_bertscore_against_a_reference_is_plain_bertscore(tmp_path, tiny_bert, capsys):
    from alignment.metrics.bertscore import cross_lingual_bertscore

    f = _files(tmp_path)
    got = _score(capsys, "--encoder", str(tiny_bert), "--metric", "bertscore", "--layer", "2",
                 "--ref", str(f["ref.en"]), "--hyp", str(f["hyp.en"]))
    want = cross_lingual_bertscore(str(tiny_bert), EN[1:6], EN[:5], layer=2)
    np.testing.assert_allclose(got["segments"], want.f1, atol=1e-12)


@pytest.mark.parametrize("extra, parameter", [
    (["--metric", "moverscore-v2", "--words"], "words"),
    (["--metric", "baryscore", "--consensus"], "consensus"),
    (["--ref", "REF"], "metric"),
    (["--metric", "moverscore-v2", "--ngram", "2", "--ref", "REF"], "ngram"),
    (["--metric", "moverscore-v2", "--ref", "REF", "--src", "SRC"], "ref"),
    (["--metric", "baryscore", "--layers", "1", "--ref", "REF"], "layers"),
    (["--metric", "bertscore", "--idf", "corpus", "--ref", "REF"], "metric"),
])
def test_what_another_metric_cannot_take_is_refused(tmp_path, tiny_bert, capsys, extra,
                                                    parameter):
    from train.cli import main

    f = _files(tmp_path)
    extra = [{"REF": str(f["ref.en"]), "SRC": str(f["src.es"])}.get(x, x) for x in extra]
    argv = ["score", "--encoder", str(tiny_bert), "--hyp", str(f["hyp.en"]), *extra]
    if "--src" not in extra and "--ref" not in extra:
        argv += ["--src", str(f["src.es"])]
    assert main(argv) != 0
    assert parameter in capsys.readouterr().err


def test_sentsim_is_the_library_metric_with_its_sentence_term_signed(tmp_path, tiny_bert,
                                                                     capsys, registered_term):
    from alignment.metrics.sentsim import SentSim
    import alignment.terms as setting

    registered_term(setting.Term(
        "lenratio", "length ratio", "--term lenratio=W", (0.0, 1.0), "length ratio",
        ident="lenratio-1", compute=lambda s, h, languages: np.array(
            [len(b) / len(a) for a, b in zip(s, h)])))
    f = _files(tmp_path)
    got = _score(capsys, "--encoder", str(tiny_bert), "--metric", "sentsim", "--layer", "2",
                 "--sentence-term", "lenratio", "--ref", str(f["ref.en"]), "--hyp",
                 str(f["hyp.en"]))
    want = SentSim(str(tiny_bert), "lenratio", layer=2).score(EN[:5], references=EN[1:6])
    np.testing.assert_allclose(got["segments"], want.scores, rtol=0, atol=1e-12)
    assert got["signature"] == want.signature and "sent:lenratio-1" in got["signature"]


def test_line_counts_that_differ_name_the_file(tmp_path, tiny_bert, capsys):
    from train.cli import main

    f = _files(tmp_path)
    short = tmp_path / "short.en"
    short.write_text(EN[0] + "\n", encoding="utf-8")
    assert main(["score", "--encoder", str(tiny_bert), "--metric", "moverscore-v2", "--ref",
                 str(f["ref.en"]), "--hyp", str(short)]) != 0
    assert "short.en" in capsys.readouterr().err
