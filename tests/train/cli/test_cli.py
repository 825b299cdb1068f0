import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import EN, ES, identity_alignment_file
from train.cli import main

ROOT = Path(__file__).resolve().parents[3]


def test_every_verb_parses_and_its_options_carry_the_config_defaults():
    """Options are generated from the config dataclasses: parsing a verb with no options gives
    exactly the dataclass's defaults, and a flag reaches its (renamed) field."""
    from train.cli import build_parser
    from train.cli.options import dataclass_from_args
    from train.experiments.comparison import CompareConfig
    from train.experiments.demo_table import DemoConfig
    from train.experiments.cbli_simulation import SimulationConfig
    from train.encoders.language_model import LanguageModelConfig

    parser = build_parser()
    for argv, cls in ((["demo"], DemoConfig), (["compare"], CompareConfig),
                      (["simulate"], SimulationConfig),
                      (["lm", "--text", "t", "--out", "o"], LanguageModelConfig)):
        assert dataclass_from_args(cls, parser.parse_args(argv)) == cls()
    args = parser.parse_args(["simulate", "--t", "3", "--eps", "0.5", "--out", "x", "--no-progress"])
    cfg = dataclass_from_args(SimulationConfig, args)
    assert (cfg.ts, cfg.epsilons, cfg.out_dir, cfg.progress) == ([3], [0.5], "x", False)
    for verb in (["data", "bible"], ["align"], ["export"], ["evaluate"], ["evaluate", "w2w"],
                 ["evaluate", "rfeval"], ["score"], ["demo"], ["compare"], ["plot"]):
        with pytest.raises(SystemExit) as exit_:
            main([*verb, "--help"])
        assert exit_.value.code == 0


def test_a_no_flag_says_that_it_turns_the_default_off():
    """A bool field that defaults to True becomes ``--no-NAME``, and its help says the flag
    turns off what the field's help describes (not that the flag does it)."""
    import argparse
    import dataclasses

    from train.cli.options import add_dataclass_options, dataclass_from_args

    @dataclasses.dataclass
    class Config:
        stack: bool = dataclasses.field(default=True, metadata={"help": "fit stacked rows"})

    parser = argparse.ArgumentParser()
    add_dataclass_options(parser, Config)
    (action,) = [a for a in parser._actions if "--no-stack" in a.option_strings]
    assert action.help.startswith("turns off") and action.help.endswith("fit stacked rows")
    assert dataclass_from_args(Config, parser.parse_args(["--no-stack"])).stack is False
    assert dataclass_from_args(Config, parser.parse_args([])).stack is True


def test_an_unknown_option_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--trian-verses", "5"])
    assert exit_.value.code == 2 and "--trian-verses" in capsys.readouterr().err


def test_fit_help_is_short_and_the_full_recipe_help_is_one_flag_away():
    short = subprocess.run([sys.executable, "-m", "train.cli", "fit", "--help"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert short.returncode == 0 and "--config" in short.stdout and "--help-all" in short.stdout
    assert len(short.stdout.splitlines()) < 30 and "crossalign train" in short.stdout
    full = subprocess.run([sys.executable, "-m", "train.cli", "fit", "--help-all"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert full.returncode == 0 and "--model" in full.stdout and "--data.help" in full.stdout


def test_bad_input_is_one_clear_line_not_a_traceback(tmp_path, capsys):
    (tmp_path / "a").write_text("uno\ndos\n")
    (tmp_path / "b").write_text("one\n")
    assert main(["align", "--src", str(tmp_path / "a"), "--tgt", str(tmp_path / "b"),
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "line counts differ" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def _recipe(tmp_path: Path, data: dict, method: str = "clp") -> Path:
    import yaml

    recipe = {
        "seed_everything": 0,
        "trainer": {"max_epochs": 1, "accelerator": "cpu", "devices": 1, "logger": False,
                    "enable_checkpointing": False, "enable_progress_bar": False,
                    "default_root_dir": str(tmp_path / "run"),
                    "callbacks": [{"class_path": "train.callbacks.SaveMapping"}]},
        "model": {"class_path": "train.modules.ClosedFormFit", "init_args": {"method": method}},
        "data": data,
    }
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe, allow_unicode=True))
    return path


def test_fit_recipe_on_text_then_export_then_evaluate(tmp_path, parallel_files, tiny_bert, capsys):
    src, tgt = parallel_files
    align = identity_alignment_file(tmp_path / "align.txt", ES, EN)
    recipe = _recipe(tmp_path, {"src": str(src), "tgt": str(tgt), "encoder": str(tiny_bert),
                                "alignment": str(align), "src_lang": "es", "tgt_lang": "en",
                                "progress": False}, "center > clp")
    assert main(["fit", "--config", str(recipe)]) == 0
    run = tmp_path / "run"
    assert (run / "export" / "remap.json").is_file() and (run / "config.yaml").is_file()
    assert main(["export", "--run", str(run), "--out", str(tmp_path / "exp")]) == 0
    meta = json.loads((tmp_path / "exp" / "remap.json").read_text())
    assert meta["mapping_type"] == "center > clp" and meta["src_lang"] == "es"
    capsys.readouterr()
    assert main(["evaluate", "--encoder", str(tmp_path / "exp"), "--src", str(src), "--tgt", str(tgt),
                 "--alignment", str(align), "--out", str(tmp_path / "eval")]) == 0
    out = capsys.readouterr().out
    assert "char 3-4-gram" in out and "unmapped" in out and meta["signature"] in out
    metrics = json.loads((tmp_path / "eval" / "metrics.json").read_text())
    assert 0.0 <= metrics["unmapped/retrieval_cosine_src2tgt"] <= 1.0


def test_fit_recipe_on_your_own_vectors(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 8)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    np.savez(tmp_path / "pairs.npz", src=x, tgt=(x @ q).astype(np.float32))
    recipe = _recipe(tmp_path, {"vectors": str(tmp_path / "pairs.npz"), "batch_size": 50})
    assert main(["fit", "--config", str(recipe)]) == 0
    from alignment.mappings import load_mapping

    w = load_mapping(tmp_path / "run" / "mapping").stages[0].weight.numpy()
    np.testing.assert_allclose(w, q, atol=1e-4)


def test_bad_vectors_are_rejected_before_fitting(tmp_path):
    np.savez(tmp_path / "pairs.npz", src=np.zeros((5, 4)), tgt=np.zeros((5, 3)))
    recipe = _recipe(tmp_path, {"vectors": str(tmp_path / "pairs.npz")})
    assert main(["fit", "--config", str(recipe)]) == 2


def test_shipped_vectors_recipe_logs_to_csv_and_to_wandb_offline(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 8)).astype(np.float32)
    np.savez(tmp_path / "pairs.npz", src=x, tgt=np.tanh(x @ rng.normal(size=(8, 8)).astype(np.float32)))
    run = tmp_path / "run"
    assert main(["fit", "--config", str(ROOT / "recipes" / "vectors" / "realnvp.yaml"),
                 "--data.vectors", "pairs.npz", "--data.val_fraction", "0.2",
                 "--data.batch_size", "128", "--model.init_args.hidden", "16",
                 "--model.init_args.semantic_top", "50", "--trainer.max_epochs", "2",
                 "--trainer.enable_progress_bar", "false", "--trainer.default_root_dir", str(run),
                 "--trainer.log_every_n_steps", "1",
                 "--trainer.logger.save_dir", str(run),
                 "--trainer.logger+=pytorch_lightning.loggers.WandbLogger",
                 "--trainer.logger.save_dir", str(run)]) == 0
    csv = next(run.rglob("metrics.csv")).read_text().splitlines()
    assert {"semantic", "structural", "val_p1"} <= set(csv[0].split(","))
    # fit has returned, and it returns only after wandb.teardown(), which waits until wandb's
    # writer process has flushed and closed the run file: its content is final here
    wandb_log = next((run / "wandb").glob("offline-run-*/run-*.wandb")).read_bytes()
    assert all(key in wandb_log for key in (b"semantic", b"structural", b"val_p1"))
    assert next(run.rglob("config.yaml")).is_file() and (run / "mapping" / "mapping.safetensors").is_file()
    assert any(p.name != "last.ckpt" for p in run.rglob("*.ckpt"))


def test_every_verb_takes_quiet_and_it_hides_progress_bars(tmp_path, capsys):
    from train.cli import build_parser

    parser = build_parser()
    verbs = next(a for a in parser._actions if hasattr(a, "choices") and a.choices).choices
    for verb, sub in verbs.items():
        assert "--quiet" in sub._option_string_actions, verb
    argv = ["data", "bible", "--pair", "es-en", "--books", "Jude", "--n-test", "2", "--n-dev", "2"]
    assert main([*argv, "--out", str(tmp_path / "loud")]) == 0
    assert "%|" in capsys.readouterr().err  # the reading bar
    assert main([*argv, "--out", str(tmp_path / "quiet"), "-q"]) == 0
    assert "%|" not in capsys.readouterr().err
