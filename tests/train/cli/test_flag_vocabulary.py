"""One flag vocabulary across verbs (docs/usage.md): the same idea has the same flag, and the
old spellings still work, hidden from help, each with a one-line note."""
from __future__ import annotations

import argparse

import pytest

from tests.conftest import EN, ES
from train.cli import build_parser, main

# (verb, retired spelling) -> the flag it now means (docs/usage.md#one-flag-vocabulary)
OLD = {("evaluate", "--ref"): "--tgt", ("evaluate", "--fmt"): "--input-format",
       ("align", "--fmt"): "--input-format", ("plot", "--ref"): "--tgt",
       ("train", "--ref"): "--tgt", ("train", "--accelerator"): "--device",
       ("encode", "--accelerator"): "--device", ("score", "--paired-bs-n"): "--bootstrap",
       ("score", "--version"): "--formula", ("evaluate", "--export"): "--encoder",
       ("plot", "--export"): "--encoder"}


def _verbs() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_old_names_are_hidden_from_help_and_mean_the_new_flag():
    verbs = _verbs()
    for (verb, old), new in OLD.items():
        actions = {s: a for a in verbs[verb]._actions for s in a.option_strings}
        assert old in actions and new in actions, (verb, old, new)
        assert actions[old].dest == actions[new].dest, (verb, old)
        if old != "--version":  # --formula's old name shares its option (shown in help)
            assert old not in verbs[verb].format_help(), (verb, old)


def test_retired_spellings_are_not_the_documented_ones_anywhere():
    """No verb shows a retired spelling of an idea the vocabulary names in its help."""
    retired = {"--fmt", "--accelerator", "--paired-bs-n"}
    for verb, parser in _verbs().items():
        shown = {s for a in parser._actions if a.help != argparse.SUPPRESS
                 for s in a.option_strings}
        assert not shown & retired, verb


def test_an_old_name_works_with_one_note(tmp_path, capsys):
    (tmp_path / "a.es").write_text("".join(s + "\n" for s in ES))
    (tmp_path / "a.en").write_text("".join(t + "\n" for t in EN))
    out = tmp_path / "a.align"
    assert main(["align", "--src", str(tmp_path / "a.es"), "--tgt", str(tmp_path / "a.en"),
                 "--fmt", "text", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("crossalign: note: --fmt is now --input-format") == 1
    assert len(out.read_text().splitlines()) == len(ES)
    assert main(["align", "--src", str(tmp_path / "a.es"), "--tgt", str(tmp_path / "a.en"),
                 "--input-format", "text", "--out", str(tmp_path / "b.align")]) == 0
    assert "is now" not in capsys.readouterr().err
    assert (tmp_path / "b.align").read_text() == out.read_text()


@pytest.mark.parametrize("device", ["gpu", "cuda:3"])
def test_train_refuses_a_gpu_this_machine_lacks_before_anything_loads(tmp_path, capsys, device):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    (tmp_path / "a.es").write_text("la casa\n")
    (tmp_path / "a.en").write_text("the house\n")
    code = main(["train", "--method", "center > clp", "--src", str(tmp_path / "a.es"),
                 "--tgt", str(tmp_path / "a.en"), "--out", str(tmp_path / "run"),
                 "--device", device])
    err = capsys.readouterr().err
    assert code == 2 and "parameter 'device'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_an_error_stays_one_line_when_an_old_name_was_used(tmp_path, capsys):
    (tmp_path / "a.es").write_text("la casa\n")
    code = main(["align", "--src", str(tmp_path / "a.es"), "--tgt", str(tmp_path / "none.en"),
                 "--fmt", "text", "--out", str(tmp_path / "a.align")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("crossalign: error:")
