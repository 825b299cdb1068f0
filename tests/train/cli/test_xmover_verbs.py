import json

import numpy as np
import pytest

from tests.conftest import EN, ES
from train.cli import main


def _files(tmp_path):
    (tmp_path / "src").write_text("".join(s + "\n" for s in ES))
    (tmp_path / "hyp").write_text("".join(t + "\n" for t in EN))
    return tmp_path / "src", tmp_path / "hyp"


def test_score_prints_one_score_per_line_and_the_signature(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                 "--hyp", str(hyp)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(ES) + 1 and lines[-1].startswith("# mean")
    assert "xmoverscore|v:" in lines[-1] and "|ver:2022r2|" in lines[-1]
    assert all(0 < float(x) <= 1 for x in lines[:-1])


def test_score_rejects_unequal_files(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    hyp.write_text("only one line\n")
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                 "--hyp", str(hyp)]) == 2
    assert "line counts differ" in capsys.readouterr().err


def test_rfeval_from_scores_and_from_the_scorer(tmp_path, tiny_bert, capsys):
    rng = np.random.default_rng(0)
    human = rng.normal(size=len(ES))
    rows = "".join(f"es-en\t{s}\t{t}\t{t}\t{h}\tsys{i % 3}\n" for i, (s, t, h) in enumerate(zip(ES, EN, human)))
    (tmp_path / "da.tsv").write_text("lp\tsrc\tmt\tref\tscore\tsystem\n" + rows)
    (tmp_path / "scores").write_text("".join(f"{h * 3}\n" for h in human))
    assert main(["evaluate", "rfeval", "--data", str(tmp_path / "da.tsv"), "--scores",
                 str(tmp_path / "scores"), "--bootstrap", "50", "--out", str(tmp_path / "o")]) == 0
    out = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert abs(out[f"{tmp_path / 'scores'}/es-en/pearson"] - 1.0) < 1e-9
    assert main(["evaluate", "rfeval", "--data", str(tmp_path / "da.tsv"), "--encoder", str(tiny_bert),
                 "--layer", "2", "--bootstrap", "20"]) == 0
    assert "xmoverscore|" in capsys.readouterr().out


def test_w2w_with_a_lexicon(tmp_path, tiny_bert, capsys):
    src, ref = _files(tmp_path)
    (tmp_path / "lex.tsv").write_text("la\tthe\ncasa\thouse\nel\tthe\nperro\tdog\n")
    assert main(["evaluate", "w2w", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                 "--ref", str(ref), "--lexicon", str(tmp_path / "lex.tsv"), "--out", str(tmp_path / "o")]) == 0
    out = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert 0.0 <= out["w2w"] <= 1.0 and out["n"] == len(ES)
    assert main(["evaluate", "w2w", "--encoder", str(tiny_bert), "--src", str(src), "--ref", str(ref)]) == 2


def test_w2w_with_an_lm_reports_both_sides_of_the_lm_term(tmp_path, tiny_bert, capsys):
    src, ref = _files(tmp_path)
    (tmp_path / "lex.tsv").write_text("la\tthe\ncasa\thouse\nel\tthe\nperro\tdog\n")
    (tmp_path / "lm.txt").write_text("".join(t + "\n" for t in EN * 6))
    assert main(["lm", "--text", str(tmp_path / "lm.txt"), "--out", str(tmp_path / "lm"), "--vocab-size", "200",
                 "--layers", "1", "--width", "16", "--heads", "2", "--epochs", "1", "--no-progress"]) == 0
    common = ["evaluate", "w2w", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
              "--ref", str(ref), "--lexicon", str(tmp_path / "lex.tsv")]
    assert main([*common, "--out", str(tmp_path / "plain")]) == 0
    assert main([*common, "--lm", str(tmp_path / "lm"), "--lm-weight", "1", "--out", str(tmp_path / "lm-out")]) == 0
    plain = json.loads((tmp_path / "plain" / "metrics.json").read_text())
    with_lm = json.loads((tmp_path / "lm-out" / "metrics.json").read_text())
    assert with_lm["w2w_without_lm"] == plain["w2w"]
    assert with_lm["mean_score_ref"] == pytest.approx(with_lm["mean_xmover_ref"] + with_lm["mean_lm_ref"])
    assert with_lm["mean_lm_ref"] < 0 and "without the LM term" in capsys.readouterr().out


@pytest.mark.skipif(__import__("shutil").which("apertium") is None, reason="apertium not installed")
def test_evaluate_challenge_end_to_end_with_both_versions_and_an_lm(tmp_path, tiny_bert, tiny_gpt2, capsys):
    from tests.alignment.test_challenge import ENGLISH, SPANISH

    (tmp_path / "src").write_text("\n".join(SPANISH) + "\n")
    (tmp_path / "ref").write_text("\n".join(ENGLISH) + "\n")
    (tmp_path / "lex.tsv").write_text("el\tthe\nhombre\tman\npan\tbread\n")
    out = tmp_path / "out"
    assert main(["evaluate", "challenge", "--src", str(tmp_path / "src"), "--ref", str(tmp_path / "ref"),
                 "--lexicon", str(tmp_path / "lex.tsv"), "--encoder", str(tiny_bert), "--layer", "2",
                 "--version", "2020", "2022", "--lm", str(tiny_gpt2), "--bootstrap", "100",
                 "--out", str(out)]) == 0
    table = (out / "table.txt").read_text()
    assert "challenge|b:1|n:20|" in table and "|ver:2020r2|" in table and "|ver:2022r2|" in table
    metrics = json.loads((out / "metrics.json").read_text())
    rows = {key.split("/")[0] for key in metrics}
    assert rows == {"unmapped · 2020", "unmapped · 2020 ⊕ LM", "unmapped · 2022", "unmapped · 2022 ⊕ LM"}
    for row in rows:
        for test in ("ranking", "ref>literal", "negation", "shuffle"):
            share, lo, hi = (metrics[f"{row}/{test}/{k}"] for k in ("share", "lo", "hi"))
            assert 0 <= lo <= share <= hi <= 1


def test_evaluate_challenge_refuses_an_unknown_version_and_a_missing_lexicon(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    with pytest.raises(SystemExit):  # argparse: an invalid choice
        main(["evaluate", "challenge", "--src", str(src), "--ref", str(hyp), "--lexicon", "x",
              "--encoder", str(tiny_bert), "--version", "2021"])
    capsys.readouterr()
    assert main(["evaluate", "challenge", "--src", str(src), "--ref", str(hyp), "--lexicon",
                 str(tmp_path / "missing.tsv"), "--encoder", str(tiny_bert)]) == 2
    assert "missing.tsv" in capsys.readouterr().err


def test_challenge_without_mt_or_lexicon_runs_the_perturbation_tests(tmp_path, tiny_bert):
    """A language with no apertium pair and no FreeDict (Basque, Chichewa): the perturbation
    tests still run; the ranking tests have no applicable source."""
    from tests.alignment.test_challenge import ENGLISH, SPANISH

    (tmp_path / "src").write_text("\n".join(SPANISH) + "\n")
    (tmp_path / "ref").write_text("\n".join(ENGLISH) + "\n")
    out = tmp_path / "out"
    assert main(["evaluate", "challenge", "--src", str(tmp_path / "src"), "--ref",
                 str(tmp_path / "ref"), "--mt", "none", "--encoder", str(tiny_bert), "--layer",
                 "2", "--version", "2022", "--bootstrap", "50", "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert 0 <= metrics["unmapped · 2022/negation/share"] <= 1
    assert metrics["unmapped · 2022/ranking/share"] != metrics["unmapped · 2022/ranking/share"]
    assert "|mt:none|lex:none|" in (out / "table.txt").read_text()
