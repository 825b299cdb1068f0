"""Through the CLI, case by case: `--overwrite` removes only what
crossalign wrote, no output is, contains or lies inside an input or the working directory, and
no name from a user or a file leads a write out of its output folder."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EN, ES, identity_alignment_file
from train.cli import main


def _one_line(err: str) -> str:
    lines = [l for l in err.strip().splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("crossalign: error:"), err
    return lines[0]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _text(folder: Path, name: str = "t") -> tuple[Path, Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    src, tgt = folder / f"{name}.es", folder / f"{name}.en"
    src.write_text("".join(s + "\n" for s in ES * 2))
    tgt.write_text("".join(t + "\n" for t in EN * 2))
    return src, tgt, identity_alignment_file(folder / f"{name}.align", ES * 2, EN * 2)


def _train(src, tgt, align, out, tiny_bert, *extra) -> list[str]:
    return ["train", "--method", "center > clp", "--src", str(src), "--tgt", str(tgt),
            "--alignment", str(align), "--encoder", str(tiny_bert), "--out", str(out), *extra]


# --- user data lost: 1. --overwrite deletes only what crossalign wrote -----------------------

USER_FILES = {"log/experiment-notes.txt": b"notes", "export/slides.pdf": b"%PDF",
              "checkpoints/my-model.ckpt": b"weights", "metrics.json": b'{"mine": 1}',
              "config.yaml": b"mine: true"}


def test_overwrite_never_deletes_files_crossalign_did_not_write(tmp_path, tiny_bert, capsys):
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "u1"
    for name, data in USER_FILES.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    assert main(_train(src, tgt, align, out, tiny_bert, "--overwrite")) == 2
    line = _one_line(capsys.readouterr().err)
    assert "did not write" in line and "config.yaml" in line
    assert _snapshot(out) == USER_FILES


def test_overwrite_replaces_a_previous_runs_files_and_keeps_the_users(tmp_path, tiny_bert):
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "run"
    assert main(_train(src, tgt, align, out, tiny_bert)) == 0
    (out / "notes.txt").write_text("mine")
    (out / "export" / "extra.txt").write_text("mine too")  # at a name a run writes
    assert main(_train(src, tgt, align, out, tiny_bert, "--overwrite")) == 2
    (out / "export" / "extra.txt").unlink()
    assert main(_train(src, tgt, align, out, tiny_bert, "--overwrite", "--layer", "1")) == 0
    assert json.loads((out / "export" / "remap.json").read_text())["layer"] == 1
    assert (out / "notes.txt").read_text() == "mine"


# --- user data lost: 2. an output is never, contains, or lies inside an input or the cwd -----

@pytest.mark.parametrize("out", [".", "log", ".."])
def test_train_never_writes_over_its_inputs_or_the_working_directory(tmp_path, tiny_bert, capsys,
                                                                    monkeypatch, out):
    proj = tmp_path / "proj"
    src, tgt, align = _text(proj / "log", "t150")
    (proj / "checkpoints").mkdir()
    (proj / "checkpoints" / "keep.ckpt").write_bytes(b"keep")
    monkeypatch.chdir(proj)
    before = _snapshot(tmp_path)
    args = _train(Path("log/t150.es"), Path("log/t150.en"), Path("log/t150.align"), out, tiny_bert,
                  "--overwrite")
    assert main(args) == 2
    line = _one_line(capsys.readouterr().err)
    assert "current directory" in line or "input" in line
    assert _snapshot(tmp_path) == before


def test_a_fit_without_an_output_folder_does_not_take_the_working_directory(tmp_path, tiny_bert,
                                                                           capsys, monkeypatch):
    src, tgt, align = _text(tmp_path / "in")
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    args = _train(src, tgt, align, tmp_path / "x", tiny_bert, "--trainer.default_root_dir", ".")
    assert main(args) == 2
    assert "current directory" in _one_line(capsys.readouterr().err)
    assert _snapshot(tmp_path) == before


# --- user data lost: 3. export recognises its own output by its manifest ---------------------

@pytest.fixture
def trained(tmp_path, tiny_bert) -> Path:
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "run"
    assert main(_train(src, tgt, align, out, tiny_bert)) == 0
    return out


def test_a_folder_with_any_remap_json_is_not_taken_for_an_export(trained, tmp_path, capsys):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "remap.json").write_text('{"my": "settings"}')
    (out / "thesis.tex").write_text("\\documentclass{article}")
    before = _snapshot(out)
    for extra in ([], ["--overwrite"]):
        assert main(["export", "--run", str(trained), "--out", str(out), *extra]) == 2
        assert "never deletes" in _one_line(capsys.readouterr().err)
        assert _snapshot(out) == before


def test_reexporting_keeps_files_the_user_added_to_an_export(trained, tmp_path, capsys):
    out = tmp_path / "exp"
    assert main(["export", "--run", str(trained), "--out", str(out)]) == 0
    (out / "my-notes.txt").write_text("mine")
    assert main(["export", "--run", str(trained), "--out", str(out), "--overwrite"]) == 2
    assert "my-notes.txt" in _one_line(capsys.readouterr().err)
    assert (out / "my-notes.txt").read_text() == "mine" and (out / "remap.json").is_file()
    (out / "my-notes.txt").unlink()
    assert main(["export", "--run", str(trained), "--out", str(out), "--src-lang", "xx"]) == 0
    assert json.loads((out / "remap.json").read_text())["src_lang"] == "xx"


# --- user data lost: 4. no silent overwrite of an input or a run's own files -----------------

def test_export_into_its_own_run_is_refused(trained, capsys):
    mapping = _snapshot(trained / "mapping")
    assert main(["export", "--run", str(trained), "--out", str(trained / "mapping"),
                 "--overwrite"]) == 2
    assert "inside the input" in _one_line(capsys.readouterr().err)
    assert _snapshot(trained / "mapping") == mapping


def test_align_never_writes_over_its_input(tmp_path, capsys):
    pytest.importorskip("eflomal")
    src, tgt, _ = _text(tmp_path)
    before = tgt.read_bytes()
    assert main(["align", "--src", str(src), "--tgt", str(tgt), "--out", str(tgt)]) == 2
    assert "is the input" in _one_line(capsys.readouterr().err)
    assert tgt.read_bytes() == before


def test_evaluate_never_replaces_a_runs_metrics(trained, tmp_path, capsys):
    src, tgt, _ = _text(tmp_path / "held")
    metrics = (trained / "metrics.json").read_bytes()
    assert main(["evaluate", "--encoder", str(trained / "export"), "--src", str(src), "--tgt",
                 str(tgt), "--out", str(trained)]) == 2
    assert "run or export folder" in _one_line(capsys.readouterr().err)
    assert (trained / "metrics.json").read_bytes() == metrics
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "metrics.json").write_text('{"mine": 1}')
    assert main(["evaluate", "--encoder", str(trained / "export"), "--src", str(src), "--tgt",
                 str(tgt), "--out", str(mine)]) == 2
    assert (mine / "metrics.json").read_text() == '{"mine": 1}'
    report = tmp_path / "report"
    for _ in range(2):  # a report folder is its own: written, then replaced
        assert main(["evaluate", "--encoder", str(trained / "export"), "--src", str(src),
                     "--tgt", str(tgt), "--out", str(report)]) == 0
    assert (report / "metrics.json").is_file()


# --- writing outside the output folder --------------------------------------------------------

def test_a_run_json_naming_a_path_cannot_lead_export_out(trained, tmp_path, capsys):
    record = json.loads((trained / "run.json").read_text())
    record["corpus"] = "../../escaped/x"
    (trained / "run.json").write_text(json.dumps(record))
    assert main(["export", "--run", str(trained), "--out", str(tmp_path / "exp")]) == 2
    assert "run.json" in _one_line(capsys.readouterr().err)
    assert not list(tmp_path.parent.rglob("escaped")) and not (tmp_path / "exp").exists()


@pytest.mark.parametrize("flag,value", [("--corpus", "/abs/olute"), ("--corpus", "a/../../b"),
                                        ("--src-lang", "es/../../z"), ("--tgt-lang", "../en")])
def test_export_names_from_the_command_line_are_checked(trained, tmp_path, capsys, flag, value):
    out = tmp_path / "exp"
    assert main(["export", "--run", str(trained), "--out", str(out), flag, value]) == 2
    assert flag.lstrip("-") in _one_line(capsys.readouterr().err)
    assert not out.exists()


def test_train_language_codes_cannot_name_a_path(tmp_path, tiny_bert, capsys):
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "deep" / "run"
    args = _train(src, tgt, align, out, tiny_bert, "--src-lang", "../../../../escaped")
    assert main(args) == 2
    assert "src-lang" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "deep").exists() and not list(tmp_path.parent.rglob("escaped*"))


def test_xmoverscore_file_names_stay_inside_the_export(tmp_path):
    from alignment.errors import InputError
    from alignment.mappings.registry import get_method
    from alignment.export.xmover_files import write_xmover_files

    clp = get_method("clp").mapping(4)
    for corpus, src in (("../x", "es"), ("ok", "e/../s"), ("/tmp/x", "es")):
        with pytest.raises(InputError):
            write_xmover_files(tmp_path, clp, corpus, src, "en", 10, 6)
    assert list(tmp_path.iterdir()) == []


# --- held-out data silently replaced ----------------------------------------------------------

def _small_bible(folder: Path, seed: int = 0) -> dict[str, bytes]:
    assert main(["data", "bible", "--out", str(folder), "--books", "Gen", "Exod", "--n-test",
                 "10", "--seed", str(seed), "--no-progress"]) == 0
    return _snapshot(folder)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*lost to truncation")  # the tiny encoder's 64 positions
@pytest.mark.parametrize("verb", [
    ["demo", "--methods", "center > clp", "--encoder", "TINY", "--no-progress"],
    ["compare", "--methods", "clp", "--epochs", "1", "--max-pairs", "500", "--bootstrap", "50"],
    ["unsupervised", "--encoder", "TINY", "--routes", "vecmap", "--supervised", "center > clp",
     "--pool-tokens", "300", "--val-tokens", "100", "--max-pairs", "500", "--vecmap-types", "100",
     "--gan-seeds", "0", "--bootstrap", "50", "--no-progress"]])
def test_another_split_is_built_beside_the_corpus_never_over_it(tmp_path, tiny_bert, capsys,
                                                                verb):
    corpus = tmp_path / "bible"
    before = _small_bible(corpus)
    capsys.readouterr()
    args = [v.replace("TINY", str(tiny_bert)) for v in verb]
    assert main([*args, "--data-dir", str(corpus), "--books", "Gen", "Exod", "--test-verses", "10",
                 "--train-verses", "60", "--seed", "1", "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    beside = tmp_path / "bible.seed1-test10-Gen+Exod"
    assert f"uses {beside}" in err
    assert _snapshot(corpus) == before  # the held-out verses of seed 0 are untouched
    assert json.loads((beside / "report.json").read_text())["settings"]["seed"] == 1
    used = json.loads((tmp_path / "out" / "config.json").read_text())
    assert used["data_dir"] == str(beside) and used["seed"] == 1  # the results name their split


def test_data_bible_never_rebuilds_a_corpus_of_other_settings(tmp_path, capsys):
    before = _small_bible(tmp_path / "bible")
    assert main(["data", "bible", "--out", str(tmp_path / "bible"), "--books", "Gen", "Exod",
                 "--n-test", "12", "--no-progress"]) == 2
    assert "other settings" in _one_line(capsys.readouterr().err)
    assert _snapshot(tmp_path / "bible") == before


# --- interrupted or full ------------------------------------------------------------------------

def test_a_safetensors_error_while_caching_is_one_line(tmp_path, tiny_bert, monkeypatch, capsys):
    from safetensors import SafetensorError

    from alignment.data.vectors import WordVectors

    def full(self, path, made_by=None):
        raise SafetensorError('Error while serializing: IoError(Os { code: 28, kind: StorageFull, '
                              'message: "No space left on device" })')

    monkeypatch.setattr(WordVectors, "save", full)
    (tmp_path / "a.es").write_text("".join(s + "\n" for s in ES))
    assert main(["encode", str(tmp_path / "a.es"), "--encoder", str(tiny_bert),
                 "--no-progress"]) == 2
    assert "cannot write the vector cache" in _one_line(capsys.readouterr().err)


def test_a_full_disk_under_any_write_is_one_line_and_exit_4(trained, tmp_path, monkeypatch,
                                                           capsys):
    import alignment.atomic as atomic

    real = atomic.follow_umask

    def full(folder):
        raise OSError(28, "No space left on device", str(folder / "mapping"))

    monkeypatch.setattr(atomic, "follow_umask", full)
    out = tmp_path / "exp"
    assert main(["export", "--run", str(trained), "--out", str(out)]) == 4
    assert "No space left on device" in _one_line(capsys.readouterr().err)
    monkeypatch.setattr(atomic, "follow_umask", real)
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".exp")]


def test_score_into_a_full_device_is_one_line(trained, tmp_path):
    import subprocess
    import sys

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    src, tgt, _ = _text(tmp_path / "held")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "train.cli", "score", "--encoder",
                               str(trained / "export"), "--src", str(src), "--hyp", str(tgt),
                               "-q"], stdout=full, stderr=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 4, done.stderr
    assert "No space left on device" in _one_line(done.stderr)


def test_a_signal_during_the_export_swap_waits_for_it(trained, tmp_path, monkeypatch, capsys):
    import os
    import signal

    import alignment.atomic as atomic

    out = tmp_path / "exp"
    assert main(["export", "--run", str(trained), "--out", str(out)]) == 0
    real = os.replace
    calls = []

    def replace_then_ctrl_c(a, b):
        if Path(b).name == "previous":  # the swap's first rename: the old export moves aside
            os.kill(os.getpid(), signal.SIGINT)
        if Path(b) == out or Path(b).name == "previous":
            calls.append(a)
        return real(a, b)

    monkeypatch.setattr(atomic.os, "replace", replace_then_ctrl_c)
    assert main(["export", "--run", str(trained), "--out", str(out), "--src-lang", "xx"]) == 130
    assert len(calls) == 2  # the swap finished before the interrupt took effect
    assert json.loads((out / "remap.json").read_text())["src_lang"] == "xx"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".exp.")]


# --- checked too late or not at all -------------------------------------------------------------

@pytest.mark.parametrize("method,named", [
    ("clp_flow:lr=-1", "lr"), ("clp_flow:transforms=0", "transforms"),
    ("clp_flow:transforms=-3", "transforms"), ("realnvp:hidden=99999999999", "hidden"),
    ("realnvp:passive=[1,2]", "passive"), ("realnvp:lr=abc", "lr"), ("realnvp:lr=nan", "lr"),
    ("realnvp:lr=inf", "lr"), ("realnvp:warm_start=maybe", "warm_start"),
    ("realnvp:lr=1e-3,lr=2e-3", "given twice"), ("center >", "'>'"), ("> clp", "'>'"),
    ("center >> clp", "'>'")])
def test_method_strings_are_refused_by_setting_before_any_work(tmp_path, capsys, method, named):
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "run"
    assert main(["train", "--method", method, "--src", str(src), "--tgt", str(tgt), "--alignment",
                 str(align), "--out", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert named in line and "parameter 'method'" in line
    assert not out.exists()


def test_resuming_after_an_input_was_edited_is_refused(tmp_path, tiny_bert, capsys):
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "run"
    args = ["train", "--method", "clp_flow:transforms=1,hidden=8", "--src", str(src), "--tgt",
            str(tgt), "--alignment", str(align), "--encoder", str(tiny_bert), "--out", str(out),
            "--trainer.enable_progress_bar", "false"]
    assert main(args + ["--epochs", "1"]) == 0
    lines = src.read_text().splitlines()
    src.write_text("\n".join(["la casa es muy grande ."] + lines[1:]) + "\n")  # same length
    last = out / "checkpoints" / "last.ckpt"
    capsys.readouterr()
    assert main(args + ["--epochs", "2", "--ckpt_path", str(last), "--data.progress", "false"]) == 2
    assert "content of an input file" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("option", [["--self-training-weight", "nan"], ["--self-training-weight", "-1"],
                                    ["--mining-threshold", "nan"], ["--rounds", "0"],
                                    ["--train-verses", "0"], ["--pool-tokens", "0"],
                                    ["--max-pairs", "0"], ["--gan-epochs", "0"],
                                    ["--routes", "mining > clp_flow", "mining > center > clp"]])
def test_unsupervised_options_are_checked_before_the_corpus(tmp_path, capsys, option):
    data = tmp_path / "bible"
    assert main(["unsupervised", "--data-dir", str(data), "--out", str(tmp_path / "out"),
                 *option]) == 2
    line = _one_line(capsys.readouterr().err)
    assert option[0].lstrip("-").replace("-", "") in line.replace("-", "").replace("_", "")
    assert not data.exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", [["--k", "0"], ["--t", "0"], ["--t", "-2"], ["--eps", "nan"],
                                    ["--epochs", "0"], ["--epochs", "-1"], ["--out", "FILE"]])
def test_simulate_options_are_checked_before_the_work(tmp_path, capsys, option):
    afile = tmp_path / "a-file"
    afile.write_text("mine")
    args = [str(afile) if v == "FILE" else v for v in option]
    assert main(["simulate", *args]) == 2
    assert option[0] in _one_line(capsys.readouterr().err)
    assert afile.read_text() == "mine"


def test_simulate_help_renders(capsys):
    with pytest.raises(SystemExit) as done:
        main(["simulate", "--help"])
    assert done.value.code == 0 and "--self-training-refit" in capsys.readouterr().out


@pytest.mark.parametrize("device", ["cuda", "cuda:3", "gpu", "tpu"])
def test_a_device_this_machine_lacks_is_one_line(trained, tmp_path, capsys, device):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    src, tgt, _ = _text(tmp_path / "held")
    assert main(["score", "--encoder", str(trained / "export"), "--src", str(src), "--hyp",
                 str(tgt), "--device", device]) == 2
    assert "parameter 'device'" in _one_line(capsys.readouterr().err)


def test_jobs_has_an_upper_bound(trained, tmp_path, capsys):
    src, tgt, _ = _text(tmp_path / "held")
    assert main(["score", "--encoder", str(trained / "export"), "--src", str(src), "--hyp",
                 str(tgt), "--jobs", "100000"]) == 2
    assert "parameter 'jobs'" in _one_line(capsys.readouterr().err)


def _edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("damage", ["dim -1", "stage dim 1e7", "text rules 5", "tokenizer"])
def test_a_crafted_export_is_one_line(trained, tmp_path, capsys, damage):
    import shutil

    export = tmp_path / "crafted"
    shutil.copytree(trained / "export", export)
    if damage == "dim -1":
        _edit_json(export / "mapping" / "mapping.json", lambda d: d["config"].update(dim=-1))
    elif damage == "stage dim 1e7":
        _edit_json(export / "mapping" / "mapping.json",
                   lambda d: d["config"]["stages"][0]["config"].update(dim=10 ** 7))
    elif damage == "text rules 5":
        _edit_json(export / "remap.json", lambda d: d.update(text={"lang": "es", "rules": 5}))
    else:  # the encoder's tokenizer.json garbled (a fine-tuned export carries its own)
        encoder = tmp_path / "encoder"
        shutil.copytree(json.loads((export / "remap.json").read_text())["encoder"], encoder)
        (encoder / "tokenizer.json").write_text((encoder / "tokenizer.json").read_text()[:200])
        _edit_json(export / "remap.json", lambda d: d.update(encoder=str(encoder)))
    src, tgt, _ = _text(tmp_path / "held")
    assert main(["score", "--encoder", str(export), "--src", str(src), "--hyp", str(tgt)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert {"dim -1": "'dim'", "stage dim 1e7": "'dim'", "text rules 5": "'text'",
            "tokenizer": "cannot load encoder"}[damage] in line


def test_a_lock_is_never_empty_and_a_reused_pid_does_not_hold_it(tmp_path, tiny_bert):
    import os

    from train.runs.run_folder import LOCK, _lock

    run = tmp_path / "run"
    run.mkdir()
    lock = _lock(run)
    pid, started = lock.read_text().split()
    assert int(pid) == os.getpid() and started
    lock.unlink()
    (run / LOCK).write_text(f"{os.getpid()} 1")  # this PID, but a process started long ago
    assert _lock(run).read_text().split()[1] == started  # taken over: that process is gone


def test_a_fit_that_fails_on_a_full_disk_leaves_no_empty_folders(tmp_path, tiny_bert, monkeypatch,
                                                                 capsys):
    from alignment.mappings.base import Mapping

    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "run"

    def full(self, directory):
        Path(directory).mkdir(parents=True, exist_ok=True)
        raise OSError(28, "No space left on device", str(Path(directory) / "mapping.json"))

    monkeypatch.setattr(Mapping, "save", full)
    assert main(_train(src, tgt, align, out, tiny_bert)) == 4
    assert "No space left on device" in capsys.readouterr().err.strip().splitlines()[-1]
    assert not (out / "mapping").exists()
