"""Every ``evaluate`` task speaks ``--format json``: one JSON object with its metrics and
signatures, the same metrics its text table reports."""
import argparse
import json

import pytest

from train.cli import build_parser, main
from tests.conftest import EN, ES


def _tasks() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    evaluate = verbs.choices["evaluate"]
    tasks = next(a for a in evaluate._actions if isinstance(a, argparse._SubParsersAction))
    return {"evaluate": evaluate, **tasks.choices}


@pytest.mark.parametrize("task", sorted(_tasks()))
def test_every_evaluate_task_takes_format_json(task):
    formats = next(a for a in _tasks()[task]._actions if "--format" in a.option_strings)
    assert "json" in formats.choices and formats.default == "text"


def test_w2w_json_holds_the_metrics_of_its_table(tmp_path, tiny_bert, capsys):
    src, ref, mt = tmp_path / "s", tmp_path / "r", tmp_path / "m"
    src.write_text("\n".join(ES) + "\n")
    ref.write_text("\n".join(EN) + "\n")
    mt.write_text("\n".join(EN[::-1]) + "\n")
    argv = ["evaluate", "w2w", "--src", str(src), "--ref", str(ref), "--mt", str(mt),
            "--encoder", str(tiny_bert), "--layer", "2"]
    assert main(argv + ["--out", str(tmp_path / "o")]) == 0
    table = json.loads((tmp_path / "o" / "metrics.json").read_text())
    capsys.readouterr()
    assert main(argv + ["--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["task"] == "w2w" and printed["signature"].startswith("xmoverscore|")
    assert printed["metrics"]["w2w"] == pytest.approx(table["w2w"])
