"""Every shipped recipe parses with the recipe parser and names a known method."""
from pathlib import Path

import pytest
import yaml

from alignment.mappings import parse_stages
from train.gradient import METHODS

RECIPES = sorted((Path(__file__).resolve().parents[2] / "recipes").rglob("*.yaml"))


def test_there_are_recipes():
    assert len(RECIPES) >= 9


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recipe_is_complete_and_valid(path):
    from pytorch_lightning import LightningModule
    from pytorch_lightning.cli import LightningCLI

    from train.datamodule import PairedVectorDataModule

    recipe = yaml.safe_load(path.read_text())
    method = recipe["model"]["init_args"]["method"]
    if method not in METHODS:
        parse_stages(method)
    cli = LightningCLI(LightningModule, PairedVectorDataModule, subclass_mode_model=True, run=False,
                       args=["--config", str(path)], save_config_kwargs={"overwrite": True})
    assert cli.model.hparams.method == recipe["model"]["init_args"]["method"]
    assert any(type(c).__name__ == "SaveMapping" for c in cli.trainer.callbacks)
