"""End to end through the CLI: what a careless or hostile user can do to crossalign, and what
they get back — the exit status, one line naming the problem, and nothing outside the named
output touched."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.conftest import EN, ES, identity_alignment_file
from train.cli import main

ROOT = Path(__file__).resolve().parents[2]
VECTORS_CLP = ROOT / "recipes" / "vectors" / "clp.yaml"
VECTORS_FLOW = ROOT / "recipes" / "vectors" / "realnvp.yaml"


def _one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.startswith("crossalign: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def run(tmp_path, parallel_files, tiny_bert) -> Path:
    """A fitted center > clp run on the tiny encoder, with its export."""
    import yaml

    src, tgt = parallel_files
    align = identity_alignment_file(tmp_path / "align.txt", ES, EN)
    recipe = yaml.safe_load((ROOT / "recipes" / "trainer" / "closed-form.yaml").read_text())
    recipe["trainer"]["default_root_dir"] = str(tmp_path / "run")
    recipe["trainer"]["accelerator"] = "cpu"
    recipe["trainer"]["enable_progress_bar"] = False
    recipe["model"] = {"class_path": "train.modules.ClosedFormFit",
                       "init_args": {"method": "center > clp"}}
    recipe["data"].update(src=str(src), tgt=str(tgt), encoder=str(tiny_bert), alignment=str(align),
                          src_lang="es", tgt_lang="en", progress=False)
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    assert main(["fit", "--config", str(path)]) == 0
    return tmp_path / "run"


# --- 1. outputs: never delete what the user did not name -------------------------------------

def test_export_refuses_a_folder_with_user_files_and_keeps_them(run, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("keep")
    assert main(["export", "--run", str(run), "--out", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "not empty" in line and "never deletes" in line
    assert _snapshot(out) == {"notes.txt": b"keep"}
    assert main(["export", "--run", str(run), "--out", str(out), "--overwrite"]) == 2
    assert _snapshot(out) == {"notes.txt": b"keep"}  # --overwrite deletes only crossalign's


def test_export_replaces_its_own_previous_output(run, tmp_path):
    out = tmp_path / "exp"
    assert main(["export", "--run", str(run), "--out", str(out)]) == 0
    first = json.loads((out / "remap.json").read_text())
    assert main(["export", "--run", str(run), "--out", str(out), "--src-lang", "xx"]) == 0
    assert json.loads((out / "remap.json").read_text())["src_lang"] == "xx" != first["src_lang"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".exp.")]  # no leftovers


@pytest.mark.parametrize("where", ["run", "parent", "cwd"])
def test_export_never_writes_over_its_input_or_the_working_directory(run, tmp_path, monkeypatch,
                                                                    capsys, where):
    monkeypatch.chdir(run)
    before = _snapshot(tmp_path)
    out = {"run": run, "parent": tmp_path, "cwd": Path(".")}[where]
    assert main(["export", "--run", str(run), "--out", str(out), "--overwrite"]) == 2
    assert "is or contains" in _one_line(capsys.readouterr().err)
    assert _snapshot(tmp_path) == before


def test_lm_refuses_a_folder_with_user_files_before_training(tmp_path, capsys):
    text = tmp_path / "lm.txt"
    text.write_text("".join(f"line {i} of english text .\n" for i in range(80)))
    out = tmp_path / "lm"
    out.mkdir()
    (out / "notes.txt").write_text("keep")
    assert main(["lm", "--text", str(text), "--out", str(out), "--no-progress"]) == 2
    assert "not empty" in _one_line(capsys.readouterr().err)
    assert _snapshot(out) == {"notes.txt": b"keep"}
    assert main(["lm", "--text", str(text), "--out", str(text.parent), "--overwrite"]) == 2


# --- 2. never run code from a downloaded run ------------------------------------------------

class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _pairs(tmp_path: Path, n: int = 300, d: int = 4, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    np.savez(tmp_path / "pairs.npz", src=x, tgt=np.tanh(x @ rng.normal(size=(d, d))).astype(np.float32))
    return tmp_path / "pairs.npz"


def _flow_args(tmp_path: Path, run_dir: Path, epochs: int, log: bool = False) -> list[str]:
    return ["fit", "--config", str(VECTORS_FLOW), "--data.vectors", str(_pairs(tmp_path)),
            "--data.val_fraction", "0.2", "--data.batch_size", "64", "--model.init_args.hidden", "8",
            "--model.init_args.semantic_top", "30", "--trainer.max_epochs", str(epochs),
            "--trainer.enable_progress_bar", "false", "--trainer.log_every_n_steps", "1",
            *([] if log else ["--trainer.logger", "false"]),
            "--trainer.default_root_dir", str(run_dir)]


def _log_rows(run_dir: Path) -> list[dict[str, str]]:
    import csv

    with open(run_dir / "log" / "metrics.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_resuming_from_a_checkpoint_with_a_pickle_payload_does_not_run_it(tmp_path, capsys):
    marker = tmp_path / "PWNED"
    torch.save({"state_dict": {}, "payload": _Payload(marker)}, tmp_path / "evil.ckpt")
    args = _flow_args(tmp_path, tmp_path / "run", 1) + ["--ckpt_path", str(tmp_path / "evil.ckpt")]
    assert main(args) == 2
    assert "more than weights" in _one_line(capsys.readouterr().err)
    assert not marker.exists() and not (tmp_path / "run" / "mapping").exists()


def test_a_planted_best_checkpoint_is_not_unpickled_when_the_run_finishes(tmp_path, capsys):
    """Lightning restores best_model_path from last.ckpt; the selected epoch is reloaded from
    there at the end of training, weights only."""
    run_dir = tmp_path / "run"
    assert main(_flow_args(tmp_path, run_dir, 1)) == 0
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil.ckpt"
    torch.save({"state_dict": {}, "payload": _Payload(marker)}, evil)
    last = run_dir / "checkpoints" / "last.ckpt"
    ckpt = torch.load(last, weights_only=True)
    for key, state in ckpt["callbacks"].items():
        if "SelectByCriterion" in key:
            state.update(best_model_path=str(evil), best_model_score=torch.tensor(1e9),
                         kth_best_model_path=str(evil), best_k_models={str(evil): torch.tensor(1e9)})
    torch.save(ckpt, last)
    assert main(_flow_args(tmp_path, run_dir, 2) + ["--ckpt_path", str(last)]) == 2
    assert "more than weights" in _one_line(capsys.readouterr().err) and not marker.exists()


# --- 3. never print NaN as a score ----------------------------------------------------------

@pytest.mark.parametrize("kind, array, message", [
    ("BAM", np.full((32, 32), np.nan, dtype=np.float32), "NaN or infinite"),
    ("BAM", np.full((32, 32), np.inf, dtype=np.float32), "NaN or infinite"),
    ("GBDD", np.zeros(32, dtype=np.float32), "unit length"),
])
def test_score_refuses_a_broken_public_mapping_file(tmp_path, tiny_bert, parallel_files, capsys,
                                                    kind, array, message):
    path = tmp_path / f"toy.es-en.1k.2.{kind}"
    with open(path, "wb") as fh:
        np.save(fh, array)
    src, tgt = parallel_files
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src), "--hyp",
                 str(tgt), "--mapping", str(path)]) == 2
    out = capsys.readouterr()
    assert message in _one_line(out.err) and "nan" not in out.out


def test_score_refuses_a_pickled_or_garbage_mapping_file(tmp_path, tiny_bert, parallel_files, capsys):
    src, tgt = parallel_files
    marker = tmp_path / "PWNED"
    bam = tmp_path / "x.BAM"
    with open(bam, "wb") as fh:
        np.save(fh, np.array([_Payload(marker)], dtype=object), allow_pickle=True)
    garbage = tmp_path / "y.BAM"
    garbage.write_bytes(b"\x93NUMPY garbage")
    for path in (bam, garbage):
        assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                     "--hyp", str(tgt), "--mapping", str(path)]) == 2
        assert str(path) in _one_line(capsys.readouterr().err)
    assert not marker.exists()


def test_an_export_with_nan_or_edited_weights_is_refused(run, tmp_path, parallel_files, capsys):
    from safetensors.torch import load_file, save_file

    src, tgt = parallel_files
    for edit, message in ((lambda t: t.fill_(float("nan")), "NaN or infinite"),
                          (lambda t: t.mul_(2.0), "fingerprint")):
        out = tmp_path / f"exp-{message.split()[0]}"
        assert main(["export", "--run", str(run), "--out", str(out)]) == 0
        weights = out / "mapping" / "mapping.safetensors"
        state = load_file(weights)
        edit(state["src_weight"])
        save_file(state, weights)
        assert main(["evaluate", "--encoder", str(out), "--src", str(src), "--tgt", str(tgt)]) == 2
        assert message in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("damage", ["truncate", "json"])
def test_a_damaged_run_is_one_line_not_a_traceback(run, tmp_path, capsys, damage):
    if damage == "truncate":
        weights = run / "mapping" / "mapping.safetensors"
        weights.write_bytes(weights.read_bytes()[:40])
    else:
        (run / "mapping" / "mapping.json").write_text("{not json")
    assert main(["export", "--run", str(run), "--out", str(tmp_path / "exp")]) == 2
    assert "mapping" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "exp").exists()


# --- 4. resume continues the same run -------------------------------------------------------

def test_a_resumed_run_selects_what_an_uninterrupted_run_selects(tmp_path):
    straight, broken = tmp_path / "straight", tmp_path / "broken"
    assert main(_flow_args(tmp_path, straight, 4, log=True)) == 0
    assert main(_flow_args(tmp_path, broken, 2, log=True)) == 0  # "killed" after epoch 2
    rows = _log_rows(broken)  # as if killed during epoch 3, after it logged a row
    with open(broken / "log" / "metrics.csv", "a") as fh:
        fh.write(",".join({"epoch": "2", "step": str(int(rows[-1]["step"]) + 1)}.get(k, "")
                          for k in rows[0]) + "\n")
    last = broken / "checkpoints" / "last.ckpt"
    assert torch.load(last, weights_only=True)["epoch"] == 1  # last.ckpt is the last epoch
    assert main(_flow_args(tmp_path, broken, 4, log=True) + ["--ckpt_path", str(last)]) == 0
    # the same run continues: one log (no version_N), each epoch's row once, equal to the
    # uninterrupted run's; the config is in the run folder
    rows_a, rows_b = _log_rows(straight), _log_rows(broken)
    assert [r["epoch"] for r in rows_a] == [r["epoch"] for r in rows_b]
    assert [r["step"] for r in rows_a] == [r["step"] for r in rows_b]
    sem = [(float(a["semantic"]), float(b["semantic"])) for a, b in zip(rows_a, rows_b) if a["semantic"]]
    assert len(sem) == 4 and all(abs(x - y) < 1e-6 for x, y in sem)
    assert not list(broken.rglob("version_*")) and (broken / "config.yaml").is_file()
    a = json.loads((straight / "metrics.json").read_text())
    b = json.loads((broken / "metrics.json").read_text())
    assert a["selected_epoch"] == b["selected_epoch"] and a["last_epoch"] == b["last_epoch"] == 3
    assert a["semantic"] == pytest.approx(b["semantic"], abs=1e-6)
    from alignment.mappings import load_mapping

    assert load_mapping(straight / "mapping").fingerprint() == load_mapping(broken / "mapping").fingerprint()


def test_a_failed_fit_leaves_no_config_behind(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main(_flow_args(tmp_path, run_dir, 2, log=True) + ["--model.init_args.lr", "1e6"]) == 3
    assert "training diverged" in capsys.readouterr().err
    assert not list(run_dir.rglob("config.yaml")) and not (run_dir / "mapping").exists()


# --- 7/8. checks before expensive work; one line, not a traceback ---------------------------

@pytest.mark.parametrize("override, message", [
    (["--data.val_fraction", "1.5"], "val_fraction"),
    (["--data.batch_size", "0"], "batch_size"),
    (["--model.init_args.method", "clp > foo"], "unknown method 'foo'"),
    (["--model.init_args.method", "realnvp"], "is trained"),
])
def test_bad_recipe_settings_fail_at_once_with_one_line(tmp_path, capsys, override, message):
    args = ["fit", "--config", str(VECTORS_CLP), "--data.vectors", str(_pairs(tmp_path)),
            "--trainer.default_root_dir", str(tmp_path / "run"), *override]
    assert main(args) == 2
    assert message in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "run" / "mapping").exists()


# --- 8/9. interruption and concurrent writers -------------------------------------------------

def test_ctrl_c_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys):
    import alignment.data.bible as bible_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bible_module, "build_bible", interrupted)
    assert main(["data", "bible", "--out", str(tmp_path / "b")]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "crossalign: interrupted" and not (tmp_path / "b").exists()


def _export_worker(args: tuple[str, str, str]) -> int:
    run, out, lang = args
    from train.cli import main as cli_main

    return cli_main(["export", "--run", run, "--out", out, "--src-lang", lang])


def test_concurrent_exports_to_one_folder_all_succeed_and_leave_one_whole_export(run, tmp_path):
    import multiprocessing

    out = tmp_path / "shared"
    langs = ["aa", "bb", "cc", "dd"] * 3
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        codes = pool.map(_export_worker, [(str(run), str(out), lang) for lang in langs])
    assert codes == [0] * len(langs)
    meta = json.loads((out / "remap.json").read_text())
    assert meta["src_lang"] in langs and (out / "mapping" / "mapping.safetensors").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".shared.")]  # no leftovers
