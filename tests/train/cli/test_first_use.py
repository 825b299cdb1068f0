"""What a new user meets first: --version, help that lists methods and shows defaults, one
command to train on their own text and score with the result, and errors that point the
right way."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EN, ES, identity_alignment_file
from train.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[3]


def test_version_prints_the_package_version(capsys):
    from alignment.version import __version__

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"crossalign {__version__}"


def test_help_and_option_parsing_do_not_load_torch():
    code = ("import sys; from train.cli import build_parser; "
            "build_parser(['score', '--src', 'a', '--hyp', 'b', '--encoder', 'e']); "
            "build_parser(['--help']); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr


def _options(parser: argparse.ArgumentParser, path: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, f"{path} {name}")
        elif action.option_strings and action.dest not in ("help", "version"):
            yield path.strip(), action


def test_every_option_of_every_verb_has_help():
    import re

    missing = [f"{verb} {a.option_strings[0]}" for verb, a in _options(build_parser())
               if not re.sub(r"\(default: .*\)", "", a.help or "").strip()]
    assert missing == []


def test_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # help wraps lines anywhere
    assert "(default: 2)" in out and "(default: text)" in out
    assert "(default: the formula's: 2020 0.1, the paper's; 2022 0.01" in out


def test_methods_lists_methods_and_presets(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "clp " in out and "realnvp " in out and "clp_flow" in out
    assert "= center > clp > realnvp:" in out


def test_a_preset_expands_and_takes_more_settings():
    from alignment.mappings import parse_method

    spec = parse_method("clp_flow:lr=0.0001")
    assert spec.stages == ("center", "clp", "realnvp")
    assert spec.overrides["nll_weight"] == 0 and spec.overrides["lr"] == 0.0001


def _own_text(tmp_path) -> tuple[str, str, str]:
    src, tgt = tmp_path / "mine.es", tmp_path / "mine.en"
    src.write_text("".join(s + "\n" for s in ES * 3))
    tgt.write_text("".join(t + "\n" for t in EN * 3))
    align = identity_alignment_file(tmp_path / "mine.align", ES * 3, EN * 3)
    return str(src), str(tgt), str(align)


def test_train_in_one_command_then_score_with_the_export(tmp_path, tiny_bert, capsys):
    src, tgt, align = _own_text(tmp_path)
    out = tmp_path / "runs" / "my-clp"
    assert main(["train", "--method", "center > clp", "--src", src, "--tgt", tgt, "--out", str(out),
                 "--encoder", str(tiny_bert), "--alignment", align]) == 0
    printed = capsys.readouterr()
    assert f"export in {out / 'export'}" in printed.out and "Trainable params" not in printed.out
    meta = json.loads((out / "export" / "remap.json").read_text())
    assert meta["mapping_type"] == "center > clp" and (meta["src_lang"], meta["tgt_lang"]) == ("es", "en")
    assert main(["score", "--encoder", str(out / "export"), "--src", src, "--hyp", tgt, "-b"]) == 0
    assert 0 < float(capsys.readouterr().out) <= 1


def test_train_a_preset_with_its_settings(tmp_path, tiny_bert, capsys):
    src, tgt, align = _own_text(tmp_path)
    out = tmp_path / "flow"
    assert main(["train", "--method", "clp_flow:transforms=2", "--src", src, "--tgt", tgt,
                 "--out", str(out), "--encoder", str(tiny_bert), "--alignment", align,
                 "--epochs", "2", "--val-fraction", "0.3", "--trainer.enable_progress_bar",
                 "false"]) == 0
    config = (out / "config.yaml").read_text()
    assert "nll_weight: 0" in config and "transforms: 2" in config and "warm_start: true" in config
    assert json.loads((out / "metrics.json").read_text())["last_epoch"] == 1.0


def test_train_refuses_a_setting_the_method_does_not_take(tmp_path, tiny_bert, capsys):
    src, tgt, _ = _own_text(tmp_path)
    assert main(["train", "--method", "realnvp:nosuch=1", "--src", src, "--tgt", tgt,
                 "--out", str(tmp_path / "r")]) == 2
    assert "unknown setting 'nosuch'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_train_needs_languages_it_cannot_guess(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("uno\n")
    (tmp_path / "b.txt").write_text("one\n")
    assert main(["train", "--method", "clp", "--src", str(tmp_path / "a.txt"), "--tgt",
                 str(tmp_path / "b.txt"), "--out", str(tmp_path / "r")]) == 2
    assert "--src-lang and --tgt-lang" in capsys.readouterr().err


def _files(tmp_path):
    (tmp_path / "s").write_text("hola\n")
    (tmp_path / "h").write_text("hello\n")
    return ["--src", str(tmp_path / "s"), "--hyp", str(tmp_path / "h")]


def test_a_mistyped_folder_says_folder_not_found(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exports").mkdir()
    assert main(["score", "--encoder", "exports/nosuch", *_files(tmp_path)]) == 2
    assert "folder not found: 'exports/nosuch'" in capsys.readouterr().err
    assert main(["score", "--encoder", "./nosuch", *_files(tmp_path)]) == 2
    assert "folder not found" in capsys.readouterr().err


def test_a_run_folder_points_to_its_export(tmp_path, capsys):
    run = tmp_path / "run"
    (run / "export").mkdir(parents=True)
    (run / "run.json").write_text("{}")
    (run / "export" / "remap.json").write_text("{}")
    assert main(["score", "--encoder", str(run), *_files(tmp_path)]) == 2
    assert f"its export is {run / 'export'}" in capsys.readouterr().err


def test_offline_failures_name_the_download_switch(tmp_path, tiny_bert, capsys, monkeypatch):
    monkeypatch.delenv("CROSSALIGN_ALLOW_DOWNLOAD", raising=False)
    assert main(["score", "--encoder", "no-such-model-xyz", *_files(tmp_path)]) == 2
    assert "CROSSALIGN_ALLOW_DOWNLOAD=1" in capsys.readouterr().err
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "1", "--lm", "no-such-lm-xyz",
                 *_files(tmp_path)]) == 2
    assert "CROSSALIGN_ALLOW_DOWNLOAD=1" in capsys.readouterr().err


def test_evaluate_and_plot_take_encoder_and_tgt_and_the_old_ref(tmp_path, capsys):
    from train.cli import build_parser as bp

    args = bp(["evaluate"]).parse_args(["evaluate", "--encoder", "E", "--src", "s", "--ref", "r"])
    assert args.export == ["E"] and args.tgt == "r"
    old = bp(["evaluate"]).parse_args(["evaluate", "--export", "E", "--src", "s", "--tgt", "r"])
    assert old.export == ["E"] and old.tgt == "r"
    args = bp(["plot"]).parse_args(["plot", "--encoder", "E", "--src", "s", "--ref", "r"])
    assert args.export == "E" and args.tgt == "r"


def test_a_trained_run_resumes_through_train_and_a_rerun_needs_overwrite(tmp_path, tiny_bert,
                                                                        capsys):
    src, tgt, align = _own_text(tmp_path)
    out = tmp_path / "flow"
    base = ["train", "--method", "clp_flow:transforms=2", "--src", src, "--tgt", tgt, "--out",
            str(out), "--encoder", str(tiny_bert), "--alignment", align, "--val-fraction", "0.3",
            "--trainer.enable_progress_bar", "false"]
    assert main(base + ["--epochs", "1"]) == 0
    assert main(base + ["--epochs", "2"]) == 2  # the folder holds a run: not silently replaced
    assert "--overwrite" in capsys.readouterr().err
    last = out / "checkpoints" / "last.ckpt"
    assert main(base + ["--epochs", "2", "--ckpt_path", str(last)]) == 0
    assert json.loads((out / "metrics.json").read_text())["last_epoch"] == 1.0


def test_methods_name_shows_a_methods_settings_and_defaults(capsys):
    assert main(["methods", "realnvp"]) == 0
    out = capsys.readouterr().out
    assert "parallel text" in out
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()
            if line.startswith("    ")}
    assert rows["lr"] == "0.001" and rows["transforms"] == "4" and rows["warm_start"] == "False"
    assert main(["methods", "clp_flow"]) == 0  # a preset: its own values, marked
    out = capsys.readouterr().out
    assert "transforms           8" in out and out.count(" *") >= 3
    assert main(["methods", "mining"]) == 0
    assert "two monolingual files" in capsys.readouterr().out
    assert main(["methods", "nosuch"]) == 2
    assert "parameter 'name': 'nosuch': unknown method" in capsys.readouterr().err
