"""Through the CLI, case by case: a run folder owned by one run,
signals that tell the truth, a Joint-Align run that resumes to the same result, remap.json and
cache entries that are verified, readable exports, and one line for every bad input."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.conftest import EN, ES, identity_alignment_file
from tests.reliability.test_outputs_and_inputs import _flow_args, _one_line
from train.cli import main

ROOT = Path(__file__).resolve().parents[2]
CLOSED_FORM = ROOT / "recipes" / "trainer" / "closed-form.yaml"
INTERRUPT = "tests.reliability.interrupt.InterruptAt"


def _clp_recipe(tmp_path: Path, tiny_bert: Path, run: Path, **data) -> list[str]:
    """``fit`` arguments for center > clp on the tiny encoder into ``run``."""
    src, tgt = tmp_path / "c.es", tmp_path / "c.en"
    src.write_text("".join(s + "\n" for s in ES))
    tgt.write_text("".join(t + "\n" for t in EN))
    align = identity_alignment_file(tmp_path / "c.align", ES, EN)
    recipe = yaml.safe_load(CLOSED_FORM.read_text())
    recipe["trainer"].update(default_root_dir=str(run), accelerator="cpu", enable_progress_bar=False)
    recipe["model"] = {"class_path": "train.modules.ClosedFormFit",
                       "init_args": {"method": "center > clp"}}
    recipe["data"].update(src=str(src), tgt=str(tgt), encoder=str(tiny_bert), alignment=str(align),
                          src_lang="es", tgt_lang="en", progress=False, **data)
    path = tmp_path / f"recipe-{run.name}.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return ["fit", "--config", str(path)]


# --- 1-3. a run folder belongs to one run ---------------------------------------------------

def test_fit_refuses_a_folder_with_the_users_files_and_leaves_them(tmp_path, tiny_bert, capsys):
    proj = tmp_path / "proj"
    (proj / "export").mkdir(parents=True)
    (proj / "export" / "notes.txt").write_text("mine")
    assert main(_clp_recipe(tmp_path, tiny_bert, proj)) == 2
    assert "files crossalign did not write (export)" in _one_line(capsys.readouterr().err)
    assert (proj / "export" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in proj.iterdir()) == ["export"]


def test_a_second_fit_needs_overwrite_which_clears_the_previous_runs_state(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(_flow_args(tmp_path, run, 1)) == 0
    assert (run / "checkpoints" / "last.ckpt").is_file()  # the previous run's state
    written = json.loads((run / ".crossalign-run.json").read_text())["written"]
    assert "checkpoints/last.ckpt" in written and "metrics.json" in written
    (run / "mine.txt").write_text("keep")
    changed = _flow_args(tmp_path, run, 1) + ["--data.val_fraction", "0.3"]
    assert main(changed) == 2
    assert "holds a previous run" in _one_line(capsys.readouterr().err)
    old = (run / "checkpoints" / "last.ckpt").stat().st_mtime_ns
    assert main(changed + ["--overwrite"]) == 0
    assert (run / "checkpoints" / "last.ckpt").stat().st_mtime_ns != old  # not the old one
    assert (run / "mine.txt").read_text() == "keep"


def test_resuming_with_another_configuration_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(_flow_args(tmp_path, run, 1)) == 0
    last = run / "checkpoints" / "last.ckpt"
    assert main(_flow_args(tmp_path, run, 2) + ["--data.val_fraction", "0.3",
                                                "--ckpt_path", str(last)]) == 2
    assert "another configuration" in _one_line(capsys.readouterr().err)


def test_a_fit_into_a_folder_another_fit_is_writing_is_refused(tmp_path, tiny_bert, capsys):
    from train.runs.run_folder import LOCK

    run = tmp_path / "run"
    run.mkdir()
    busy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (run / LOCK).write_text(str(busy.pid))
        assert main(_clp_recipe(tmp_path, tiny_bert, run)) == 2
        assert f"another fit (process {busy.pid})" in _one_line(capsys.readouterr().err)
    finally:
        busy.kill()
        busy.wait()
    assert main(_clp_recipe(tmp_path, tiny_bert, run)) == 0  # a lock whose process is gone
    assert not (run / LOCK).exists()


# --- 4. signals -------------------------------------------------------------------------------

@pytest.mark.parametrize("signum, code, line", [(signal.SIGTERM, 143, "crossalign: terminated"),
                                                (signal.SIGINT, 130, "crossalign: interrupted")])
def test_a_signal_during_fit_is_a_failure_and_writes_no_mapping(tmp_path, capsys, signum, code,
                                                               line):
    run = tmp_path / "run"
    args = _flow_args(tmp_path, run, 3) + [f"--trainer.callbacks+={INTERRUPT}",
                                           "--trainer.callbacks.step", "2",
                                           "--trainer.callbacks.signum", str(int(signum))]
    assert main(args) == code
    assert capsys.readouterr().err.strip().splitlines()[-1] == line
    assert not (run / "mapping").exists() and not (run / "config.yaml").exists()


def test_sigterm_during_export_leaves_no_temporary_folder(tmp_path, tiny_bert, monkeypatch, capsys):
    run = tmp_path / "run"
    assert main(_clp_recipe(tmp_path, tiny_bert, run)) == 0
    import alignment.export.remapped as export_module

    def killed(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(export_module, "write_xmover_files", killed)
    assert main(["export", "--run", str(run), "--out", str(tmp_path / "exp")]) == 143
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".exp.")]
    assert not (tmp_path / "exp").exists()


# --- 5. Joint-Align resumes to the same result ------------------------------------------------

def test_an_interrupted_joint_align_run_resumes_to_the_uninterrupted_result(tmp_path, tiny_bert):
    from tests.train.modules.test_joint_align_fit import _recipe

    assert main(["fit", "--config", str(_recipe(tmp_path, tiny_bert, "straight"))]) == 0
    broken = _recipe(tmp_path, tiny_bert, "broken")
    assert main(["fit", "--config", str(broken), f"--trainer.callbacks+={INTERRUPT}",
                 "--trainer.callbacks.step", "7"]) == 130
    last = tmp_path / "broken" / "checkpoints" / "last.ckpt"  # written at the last validation
    assert last.is_file() and not (tmp_path / "broken" / "export").exists()
    assert main(["fit", "--config", str(broken), "--ckpt_path", str(last)]) == 0
    a = json.loads((tmp_path / "straight" / "metrics.json").read_text())
    b = json.loads((tmp_path / "broken" / "metrics.json").read_text())
    assert a["selected_step"] == b["selected_step"]
    assert b["selected_value"] == pytest.approx(a["selected_value"], abs=1e-6)
    # metrics.json reports the selected step's numbers, not the last validation's
    assert b["semantic"] == b["selected_value"]
    # 9. the export is readable like any file the user writes
    mode = (tmp_path / "broken" / "export" / "model.safetensors").stat().st_mode & 0o777
    mask = os.umask(0)
    os.umask(mask)
    assert mode == 0o666 & ~mask


# --- 6. remap.json is verified ----------------------------------------------------------------

@pytest.mark.parametrize("edit, message", [
    (lambda m: m.update(mapped_side="src"), "field 'mapped_side' says 'src'"),
    (lambda m: m.update(signature=m["signature"].replace("L:2", "L:1")), "field 'signature'"),
    (lambda m: m.update(layer="6"), "field 'layer' must be an integer"),
    (lambda m: m.update(tokenizer="x"), "field 'tokenizer' must be an object"),
    (lambda m: m.pop("encoder"), "field 'encoder' is missing"),
    (lambda m: m.update(text="x"), "field 'text' must be an object or null"),
])
def test_an_edited_remap_json_is_one_line(tmp_path, tiny_bert, capsys, edit, message):
    run = tmp_path / "run"
    assert main(_clp_recipe(tmp_path, tiny_bert, run)) == 0
    meta_path = run / "export" / "remap.json"
    meta = json.loads(meta_path.read_text())
    edit(meta)
    meta_path.write_text(json.dumps(meta))
    (tmp_path / "s").write_text("hola\n")
    (tmp_path / "h").write_text("hello\n")
    assert main(["score", "--encoder", str(run / "export"), "--src", str(tmp_path / "s"),
                 "--hyp", str(tmp_path / "h")]) == 2
    assert message in _one_line(capsys.readouterr().err)


def test_a_remap_json_that_is_a_list_is_one_line(tmp_path, capsys):
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "remap.json").write_text("[1, 2]")
    from alignment.errors import InputError
    from alignment.export.remapped import load_remapped

    with pytest.raises(InputError, match="must hold a JSON object, not list"):
        load_remapped(exp)


# --- 7. no NaN score ------------------------------------------------------------------------

@pytest.mark.parametrize("array, message", [
    (np.full((32, 32), 1e307), "would overflow"),
    (np.eye(32) * (1 + 1j), "complex128"),
])
def test_a_mapping_file_that_cannot_give_a_finite_score_is_refused(tmp_path, tiny_bert, capsys,
                                                                  array, message):
    bam = tmp_path / "m.BAM"
    with open(bam, "wb") as fh:
        np.save(fh, array)
    (tmp_path / "s").write_text("hola\n")
    (tmp_path / "h").write_text("hello\n")
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--mapping", str(bam),
                 "--src", str(tmp_path / "s"), "--hyp", str(tmp_path / "h")]) == 2
    assert message in _one_line(capsys.readouterr().err)


def test_an_npz_under_a_bam_name_is_one_line(tmp_path, tiny_bert, capsys):
    np.savez(tmp_path / "m.npz", w=np.eye(32))
    os.replace(tmp_path / "m.npz", tmp_path / "m.BAM")
    (tmp_path / "s").write_text("hola\n")
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--mapping",
                 str(tmp_path / "m.BAM"), "--src", str(tmp_path / "s"),
                 "--hyp", str(tmp_path / "s")]) == 2
    assert "an .npz archive" in _one_line(capsys.readouterr().err)


# --- 8. cache entries are verified ------------------------------------------------------------

def _entry(tiny_bert, layer=2):
    from alignment.encoding.encoder import load_encoder
    from alignment.encoding.pipeline import cache_entry

    encoder = load_encoder(str(tiny_bert), layer=layer)
    tokens = [encoder.word_tokenizer(s) for s in ES]
    return encoder, tokens, *cache_entry(encoder, ES)


@pytest.mark.parametrize("damage, why", [
    ("wide", "was made by another"),
    ("nan", "holds non-finite values"),
    ("other_layer", "was made by another"),
])
def test_a_cache_entry_that_was_not_made_for_this_is_rebuilt(tiny_bert, damage, why):
    from alignment.encoding.pipeline import encode_side
    from alignment.data.vectors import WordVectors

    encoder, tokens, path, made_by = _entry(tiny_bert)
    good = encode_side(encoder, ES, tokens, progress=False)
    if damage == "wide":
        WordVectors(np.zeros((len(good.vectors), 64), np.float32), good.offsets).save(path)
    elif damage == "nan":
        bad = good.vectors.copy()
        bad[0, :3] = np.nan
        WordVectors(bad, good.offsets).save(path, made_by)
    else:  # same shape, made at another layer, stored under this key
        other, _, _, other_made_by = _entry(tiny_bert, layer=1)
        WordVectors(encode_side(other, ES, tokens, progress=False).vectors,
                    good.offsets).save(path, other_made_by)
    with pytest.warns(UserWarning, match=why):
        again = encode_side(encoder, ES, tokens, progress=False)
    np.testing.assert_array_equal(again.vectors, good.vectors)


def test_a_full_disk_while_caching_is_one_line(tmp_path, tiny_bert, monkeypatch, capsys):
    from alignment.data.vectors import WordVectors

    def full(self, path, made_by=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(WordVectors, "save", full)
    (tmp_path / "a.es").write_text("".join(s + "\n" for s in ES))
    assert main(["encode", str(tmp_path / "a.es"), "--encoder", str(tiny_bert),
                 "--no-progress"]) == 2
    assert "No space left on device" in _one_line(capsys.readouterr().err)


# --- 10-12. one line, before the expensive part, nothing written ------------------------------

@pytest.mark.parametrize("extra, message", [
    (["--devices", "0"], "parameter 'devices'"),
    (["--devices", "abc"], "parameter 'devices'"),
    (["--strategy", "fsdp"], "FSDP"),
    (["--max-sentences", "-5"], "parameter 'max-sentences'"),
    (["--batch-size", "0"], "parameter 'batch-size'"),
])
def test_encode_checks_its_options_first(tmp_path, capsys, extra, message):
    (tmp_path / "a.es").write_text("hola\n")
    assert main(["encode", str(tmp_path / "a.es"), "--encoder", "no/such/encoder", *extra]) == 2
    assert message in _one_line(capsys.readouterr().err)


def test_encode_refuses_a_cache_dir_that_is_a_file(tmp_path, capsys):
    (tmp_path / "a.es").write_text("hola\n")
    assert main(["encode", str(tmp_path / "a.es"), "--cache-dir", str(tmp_path / "a.es")]) == 2
    assert "is a file, not a folder" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("extra, message", [
    (["--trainer.max_epochs", "-5"], "max_epochs"),
    (["--data.max_sentences", "-5"], "parameter 'max_sentences'"),
    (["--data.nosuch", "3"], "data: Option 'nosuch' is not accepted"),
])
def test_bad_recipe_values_are_one_line(tmp_path, tiny_bert, capsys, extra, message):
    run = tmp_path / "run"
    assert main(_clp_recipe(tmp_path, tiny_bert, run) + extra) == 2
    err = capsys.readouterr().err
    assert message in _one_line(err) and len(err.strip().splitlines()) == 1
    assert not (run / "mapping").exists()


def test_a_recipe_that_is_a_yaml_list_is_one_line(tmp_path, capsys):
    (tmp_path / "r.yaml").write_text("- a\n- b\n")
    assert main(["fit", "--config", str(tmp_path / "r.yaml")]) == 2
    assert "a recipe is a YAML mapping" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("data, message", [
    ({"val_fraction": 0.0}, "give val_fraction > 0"),
    ({"max_sentences": 1}, "must be >= 2"),
])
def test_unsupervised_recipes_check_their_data_before_training(tmp_path, tiny_bert, capsys, data,
                                                              message):
    from tests.train.cli.test_unsupervised_recipes import ROOT as UNPAIRED, _shrink

    src, tgt = tmp_path / "p.es", tmp_path / "p.en"
    src.write_text("".join(s + "\n" for s in ES * 3))
    tgt.write_text("".join(t + "\n" for t in EN * 3))
    recipe = _shrink(UNPAIRED / "muse.yaml", tmp_path, {
        "src": str(src), "tgt": str(tgt), "encoder": str(tiny_bert), "sampling": "disjoint",
        "progress": False, **data})
    assert main(["fit", "--config", str(recipe)]) == 2
    assert message in _one_line(capsys.readouterr().err)
    run = tmp_path / "run"
    assert not (run / "checkpoints").exists() and not (run / "log").exists()


def test_a_run_folder_as_encoder_points_to_its_export(tmp_path, tiny_bert, capsys):
    run = tmp_path / "run"
    assert main(_clp_recipe(tmp_path, tiny_bert, run)) == 0
    (tmp_path / "s").write_text("hola\n")
    assert main(["score", "--encoder", str(run), "--src", str(tmp_path / "s"),
                 "--hyp", str(tmp_path / "s")]) == 2
    assert f"its export is {run / 'export'}" in _one_line(capsys.readouterr().err)


def test_a_layer_beyond_the_exports_encoder_is_refused(tmp_path, tiny_bert, capsys):
    run = tmp_path / "run"
    assert main(_clp_recipe(tmp_path, tiny_bert, run)) == 0  # layer -1 of 2 = 2
    (tmp_path / "s").write_text("hola\n")
    # 5 mod 3 == 2, the export's layer: still refused, the encoder has no layer 5
    assert main(["score", "--encoder", str(run / "export"), "--layer", "5",
                 "--src", str(tmp_path / "s"), "--hyp", str(tmp_path / "s")]) == 2
    assert "layer 5 out of range" in _one_line(capsys.readouterr().err)


def test_a_damaged_weights_file_is_one_line(tmp_path, tiny_bert, capsys):
    import shutil

    half = tmp_path / "half"
    shutil.copytree(tiny_bert, half)
    weights = half / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    (tmp_path / "s").write_text("hola\n")
    assert main(["score", "--encoder", str(half), "--src", str(tmp_path / "s"),
                 "--hyp", str(tmp_path / "s")]) == 2
    assert "damaged or incomplete" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("verb", [["evaluate", "challenge", "--lexicon", "L", "--encoder", "E"],
                                  ["evaluate", "w2w", "--lexicon", "L", "--encoder", "E"]])
def test_an_out_that_is_a_file_is_refused_before_scoring(tmp_path, capsys, verb):
    (tmp_path / "s").write_text("hola\n")
    (tmp_path / "taken").write_text("x")
    assert main([*verb, "--src", str(tmp_path / "s"), "--ref", str(tmp_path / "s"),
                 "--out", str(tmp_path / "taken")]) == 2
    assert "is a file" in _one_line(capsys.readouterr().err)


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="this machine has a GPU")
def test_a_gpu_accelerator_on_a_machine_without_one_is_one_line(tmp_path, tiny_bert, capsys):
    assert main(_clp_recipe(tmp_path, tiny_bert, tmp_path / "run")
                + ["--trainer.accelerator", "gpu"]) == 2
    assert "gpu" in _one_line(capsys.readouterr().err).lower()
