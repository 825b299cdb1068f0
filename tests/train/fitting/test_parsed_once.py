"""A method string is parsed once on every path: the grammar reads the user's text once, and
what travels after that (the plan, a recipe crossalign train writes down, the fitter, the
saved run) holds the parsed method or is written from it."""
from __future__ import annotations

from collections import Counter

import pytest
import yaml

import alignment.mappings.registry as registry
from tests.conftest import EN, ES, assert_parsed_once, identity_alignment_file
from train.cli import main

def _own_text(tmp_path) -> tuple[str, str, str]:
    src, tgt = tmp_path / "mine.es", tmp_path / "mine.en"
    src.write_text("".join(s + "\n" for s in ES * 3))
    tgt.write_text("".join(t + "\n" for t in EN * 3))
    return str(src), str(tgt), str(identity_alignment_file(tmp_path / "mine.align", ES * 3,
                                                            EN * 3))


@pytest.mark.parametrize("method, epochs", [("center > clp", 1), ("clp_flow:transforms=2", 1),
                                            ("center > fcnn:hidden=8", 2)])
def test_train_parses_the_method_once_and_saves_a_recipe_that_refits(method, epochs, tmp_path,
                                                                     tiny_bert, parses):
    src, tgt, align = _own_text(tmp_path)
    out = tmp_path / "run"
    assert main(["train", "--method", method, "--src", src, "--tgt", tgt, "--out", str(out),
                 "--encoder", str(tiny_bert), "--alignment", align, "--val-fraction", "0.3",
                 "--epochs", str(epochs), "--trainer.enable_progress_bar", "false"]) == 0
    assert_parsed_once(parses, method)
    # the saved recipe writes the method by its stages, its settings as the model's arguments
    saved = yaml.safe_load((out / "config.yaml").read_text())["model"]
    spec = registry.parse_method(method)
    assert saved["init_args"]["method"] == spec.name
    assert all(saved["init_args"][k] == v for k, v in spec.overrides.items())
    parses.clear()
    again = tmp_path / "again"
    assert main(["fit", "--config", str(out / "config.yaml"), "--trainer.default_root_dir",
                 str(again), "--trainer.enable_progress_bar", "false"]) == 0
    assert parses == Counter({spec.name: 1})  # the recipe's text: read once, by the fitter
    assert (again / "export" / "remap.json").is_file()


def test_settings_in_a_recipes_method_text_are_refused_not_dropped(tmp_path, capsys):
    src, tgt, _ = _own_text(tmp_path)
    assert main(["fit", "--model", "train.modules.flow.FlowFit", "--model.init_args.method",
                 "realnvp:lr=0.5", "--data.init_args.src", src, "--data.init_args.tgt", tgt,
                 "--trainer.default_root_dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "parameter 'model.init_args.method'" in err and "init_args (lr: 0.5)" in err
    assert not (tmp_path / "run").exists()


def test_an_in_process_plan_parses_once(parses):
    import numpy as np

    from train.data.paired import PairedVectorDataModule
    from train.fitting.plan import plan_fit

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 4)).astype(np.float32)
    dm = PairedVectorDataModule.from_arrays(x, x + 1, val=(x[:40], x[:40] + 1), batch_size=50)
    plan_fit("center > clp > fcnn:hidden=8", epochs=1).run(dm)
    assert_parsed_once(parses, "center > clp > fcnn:hidden=8")


def test_simulate_parses_each_method_once(tmp_path, parses):
    methods = ["center > clp", "fcnn:hidden=8"]
    gan = "gan_realnvp:transforms=2,hidden=8"
    assert main(["simulate", "--t", "1", "--k", "5", "--eps", "0", "--seeds", "0", "--epochs", "2",
                 "--methods", *methods, "--unsupervised", "--gan-method", gan,
                 "--gan-map-steps", "3", "--rounds", "1", "--out", str(tmp_path / "sim"),
                 "--no-progress"]) == 0
    assert_parsed_once(parses, *methods, gan)
