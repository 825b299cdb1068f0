"""``crossalign data NAME`` / ``crossalign evaluate NAME`` for registered human-judgment
benchmarks: the real encoder path on the fixtures, the formats, several rows compared, a new
benchmark as one registration, and bad input as one line with nothing written."""
import json
from pathlib import Path

import numpy as np
import pytest

from alignment.judgments import BENCHMARKS, Benchmark, register_benchmark
from alignment.judgments.segments import JudgedSegments
from train.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures"


@pytest.mark.filterwarnings("ignore:.*subword pieces", "ignore:.*longer than the LM's context")
def test_evaluate_wmt17_scores_every_row_with_intervals_and_tests(tmp_path, wmt17_data, tiny_bert,
                                                                  tiny_gpt2, capsys):
    out = tmp_path / "report"
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--encoder", str(tiny_bert),
                 f"de-en={tiny_bert},lv-en={tiny_bert}", "--labels", "base", "per-pair",
                 "--layer", "1", "--lm", str(tiny_gpt2), "--lm-weight", "0.05", "--bootstrap", "50", "--system-lines", "6",
                 "--out", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    for row in ("base", "per-pair", "base ⊕ LM", "LM alone", "SentBLEU (reads the reference)"):
        for pair in ("de-en", "lv-en", "avg"):
            lo, r, hi = (metrics[f"{row}/{pair}/{k}"] for k in ("pearson_lo", "pearson", "pearson_hi"))
            assert lo <= r <= hi
    # the same encoder for every pair or named per pair: the same scores
    assert metrics["per-pair/de-en/pearson"] == pytest.approx(metrics["base/de-en/pearson"])
    assert metrics["per-pair/de-en/diff"] == pytest.approx(0.0, abs=1e-12)
    assert 0.0 <= metrics["base ⊕ LM/lv-en/williams_p"] <= 1.0
    assert metrics["base/de-en/systems"] == 3 and "base ⊕ LM/lv-en/pairwise_accuracy" in metrics
    assert "paper: Mover-2 + CLP(M-BERT) ⊕ LM" in text and "xmoverscore|" in text
    (signed,) = [line for line in text.splitlines() if line.startswith("base ⊕ LM: xmoverscore|")]
    assert f"|lm:{tiny_gpt2}@" in signed and "|coef:0.05|" in signed  # the weight used


def test_formats_and_precomputed_scores(tmp_path, wmt17_data, capsys):
    from alignment.judgments import get_benchmark

    data = get_benchmark("wmt17").load(wmt17_data, "test", None)
    scores = tmp_path / "human-ish.txt"
    scores.write_text("".join(f"{h * 2 + 1}\n" for h in data.human))
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--scores", str(scores),
                 "--format", "json", "--bootstrap", "20"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairs"] == ["de-en", "lv-en"]
    assert doc["metrics"][f"{scores}/de-en/pearson"] == pytest.approx(1.0)
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--scores", str(scores),
                 "--format", "tsv", "--bootstrap", "20", "--no-baselines"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # a line for each pair, the average and the pooled Pearson (a human-ish score pools at 1)
    assert lines[0].startswith("row\tpair\tpearson") and len(lines) == 1 + 4 + 1
    pooled = next(line.split("\t") for line in lines if line.split("\t")[1:2] == ["pooled"])
    assert float(pooled[2]) == pytest.approx(1.0)
    assert lines[-1].startswith("# ")


def test_a_new_benchmark_is_one_registration(tmp_path, capsys):
    rng = np.random.default_rng(0)
    human = rng.normal(size=30)

    def load(data, split, pairs):
        return JudgedSegments(["xx-en"] * 30, [f"s{i}" for i in range(30)], [f"m{i}" for i in range(30)],
                              human, baselines={"oracle": human + 0.01 * rng.normal(size=30)})

    register_benchmark(Benchmark("toy", "a toy benchmark", load, ("xx-en",),
                                 default_data=str(tmp_path), baselines={"oracle": "oracle column"}))
    try:
        assert main(["evaluate", "toy", "--bootstrap", "20", "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["metrics"]["oracle column/xx-en/pearson"] > 0.99
    finally:
        del BENCHMARKS["toy"]


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "wmt17", "--data", "{data}", "--pairs", "es-en", "--scores", "x"],
     "wmt17 has no pair 'es-en'"),
    (["evaluate", "wmt17", "--data", "{data}", "--scores", "{bad}"], r"bad.txt:2: score 'high' is not a number"),
    (["evaluate", "wmt17", "--data", "{data}", "--encoder", "de-en={tiny}", "--layer", "1"],
     "row 'de-en=.*' names no export for pair lv-en"),
    (["evaluate", "wmt17", "--data", "{data}", "--lm", "x.gguf", "--encoder", "{tiny}"], "file not found: 'x.gguf'"),
    (["evaluate", "mlqe", "--data", "{data}", "--scores", "x"], "holds no mlqe pair"),
    (["data", "mlqe", "--from", "{wmt}"], "is not a clone of sheffieldnlp/mlqe-pe"),
    (["evaluate", "wmt17", "--data", "{data}", "--encoder", "{tiny}", "--ngram", "0"],
     "parameter 'ngram': must be >= 1"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, wmt17_data, tiny_bert, capsys, argv, message):
    (tmp_path / "bad.txt").write_text("0.1\nhigh\n")
    fill = {"data": str(wmt17_data), "bad": str(tmp_path / "bad.txt"), "tiny": str(tiny_bert),
            "wmt": str(FIXTURES / "wmt17-clone")}
    argv = [a.format(**fill) for a in argv] + ["--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("crossalign: error:")
    import re

    assert re.search(message, err[0]), err[0]
    assert not (tmp_path / "o").exists()


def test_consensus_rows_read_the_other_systems_and_no_reference(tmp_path, wmt17_data, capsys):
    from alignment.judgments import get_benchmark
    from alignment.judgments.benchmark_rows import segment_consensus

    bench = get_benchmark("wmt17")
    data = bench.load(wmt17_data, "test", None)
    values = segment_consensus(bench, data, wmt17_data, log=lambda m: None)
    assert np.isfinite(values).all() and ((0 <= values) & (values <= 1)).all()
    # the term depends on the other systems' outputs, not on the reference
    changed = bench.load(wmt17_data, "test", None)
    changed.ref = ["nothing alike" for _ in changed.ref]
    assert segment_consensus(bench, changed, wmt17_data, log=lambda m: None) == pytest.approx(values)
    scores = tmp_path / "scores.txt"
    scores.write_text("".join(f"{len(m)}\n" for m in data.mt))
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--scores", str(scores),
                 "--consensus", "--format", "json", "--bootstrap", "20", "--no-baselines"]) == 0
    doc = json.loads(capsys.readouterr().out)
    labels = [r["label"] for r in doc["rows"]]
    assert labels == [str(scores), f"{scores} ⊕ consensus", "consensus alone"]
    assert doc["rows"][1]["signature"].endswith("combine:z-sum-per-pair")
    assert -1 <= doc["metrics"]["consensus alone/de-en/pearson"] <= 1


def test_consensus_needs_system_outputs(tmp_path, capsys):
    path = tmp_path / "mine.tsv"
    path.write_text("lp\tsrc\tmt\tscore\nde-en\tein Haus\ta house\t0.5\nde-en\tzwei\ttwo\t0.1\n")
    with pytest.raises(SystemExit):
        main(["evaluate", "rfeval", "--data", str(path), "--consensus"])
    assert "--consensus" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:.*subword pieces", "ignore:.*longer than the LM's context")
def test_the_sentence_term_is_a_row_of_its_own_and_part_of_every_row(tmp_path, wmt17_data,
                                                                     tiny_bert, tiny_gpt2, capsys):
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--encoder", str(tiny_bert),
                 "--labels", "base", "--layer", "1", "--lm", str(tiny_gpt2), "--sentence-weight",
                 "0.3", "--sentence-layer", "2", "--bootstrap", "20", "--no-baselines",
                 "--format", "json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    labels = [r["label"] for r in doc["rows"]]
    assert labels == ["base ⊕ sentence", "base ⊕ sentence ⊕ LM", "LM alone", "sentence alone"]
    signatures = {r["label"]: r["signature"] for r in doc["rows"]}
    assert "|sent:L2,mean*0.3|" in signatures["base ⊕ sentence"]
    assert "|xm:0|" in signatures["sentence alone"]  # the row's scorer, its term alone
    assert "|lm:none|sent:L2,mean*1|" in signatures["sentence alone"]
    assert -1 <= doc["metrics"]["sentence alone/de-en/pearson"] <= 1


@pytest.mark.filterwarnings("ignore:.*subword pieces", "ignore:.*longer than the LM's context")
def test_the_lm_rows_and_the_consensus_read_the_outputs_as_the_scorers_do(
        tmp_path, wmt17_data, tiny_bert, tiny_gpt2, capsys, monkeypatch):
    """With ``--read written`` every text the LM and the consensus term see — segment level
    and system level, the judged output and the other systems' — is the output as written."""
    from alignment.judgments import get_benchmark
    from alignment.terms import consensus
    from alignment.xmover.lm import LanguageModelScorer
    from alignment.xmover.written import is_tokenised

    data = get_benchmark("wmt17").load(wmt17_data, "test", None)
    assert any(is_tokenised(m) for m in data.mt)  # the released outputs are tokenised
    seen: list[str] = []
    score, agree = LanguageModelScorer.score, consensus.consensus_scores
    monkeypatch.setattr(LanguageModelScorer, "score",
                        lambda self, texts, *a, **k: seen.extend(texts) or score(self, texts, *a, **k))
    monkeypatch.setattr(consensus, "consensus_scores", lambda hyps, others: seen.extend(
        [*hyps, *(o for many in others for o in many)]) or agree(hyps, others))
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--encoder", str(tiny_bert),
                 "--layer", "1", "--lm", str(tiny_gpt2), "--system-lines", "6", "--consensus",
                 "--read", "written", "--bootstrap", "20", "--no-reuse", "-q",
                 "--format", "json"]) == 0
    assert seen and not [t for t in seen if is_tokenised(t)]
