"""``--threads``: every verb takes it (before or after the verb), torch uses it, a run records
it, bad values are one line naming the option, and ``auto`` leaves busy cores alone."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from tests.conftest import EN, ES
from train.cli import main
from train.cli.threads import busy_cores, idle_cores


@pytest.fixture(autouse=True)
def _restore_threads(monkeypatch):
    """``--threads`` also sets the variables that child processes read: put them back, so the
    session's later tests keep its one count."""
    import os

    before = torch.get_num_threads()
    for name in ("CROSSALIGN_THREADS", "OMP_NUM_THREADS"):
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])
    yield
    torch.set_num_threads(before)


def _files(tmp_path):
    (tmp_path / "s.es").write_text("".join(s + "\n" for s in ES))
    (tmp_path / "h.en").write_text("".join(t + "\n" for t in EN))
    return str(tmp_path / "s.es"), str(tmp_path / "h.en")


@pytest.mark.parametrize("before_verb", [True, False])
def test_threads_before_or_after_the_verb_set_torch(tmp_path, tiny_bert, capsys, before_verb):
    src, hyp = _files(tmp_path)
    verb = ["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", src, "--hyp", hyp, "-b"]
    argv = ["--threads", "1", *verb] if before_verb else [*verb, "--threads", "1"]
    torch.set_num_threads(2)
    assert main(argv) == 0 and torch.get_num_threads() == 1
    assert float(capsys.readouterr().out) > 0


@pytest.mark.parametrize("value", ["0", "many", "-2"])
def test_bad_thread_counts_are_one_line(tmp_path, capsys, value):
    src, hyp = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--encoder", "x", "--src", src, "--hyp", hyp, "--threads", value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--threads" in err and len(err.strip().splitlines()) == 1


def test_a_bad_environment_value_names_the_variable(tmp_path, capsys, monkeypatch):
    src, hyp = _files(tmp_path)
    monkeypatch.setenv("CROSSALIGN_THREADS", "lots")
    assert main(["score", "--encoder", "x", "--src", src, "--hyp", hyp]) == 2
    assert "parameter 'CROSSALIGN_THREADS': 'lots' is not a whole number" in capsys.readouterr().err


def test_a_training_run_records_its_thread_count(parallel_files, tiny_bert, tmp_path, capsys):
    src, tgt = parallel_files
    out = tmp_path / "run"
    assert main(["train", "--method", "center > clp", "--src", str(src), "--tgt", str(tgt),
                 "--encoder", str(tiny_bert), "--layer", "2", "--out", str(out),
                 "--threads", "1"]) == 0
    assert json.loads((out / "run.json").read_text())["threads"] == 1


def test_auto_leaves_the_cores_a_busy_process_holds(monkeypatch):
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert busy_cores(0.5) >= 0.5  # the spinning process shows up
    finally:
        spin.kill()
        spin.wait()
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    monkeypatch.setattr("train.cli.threads.busy_cores", lambda seconds: 2.6)
    assert idle_cores() == 1
    monkeypatch.setattr("train.cli.threads.busy_cores", lambda seconds: 0.2)
    assert idle_cores() == 4  # the load average still counted work that had ended
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    monkeypatch.setattr("train.cli.threads.busy_cores", lambda seconds: 9.0)
    assert idle_cores() == 4  # an idle load average is not sampled
