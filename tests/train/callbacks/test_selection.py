"""Callbacks exchange a typed Selection: the saving callback writes the last refinement,
whatever order the callbacks are listed in."""
import json
import warnings

import numpy as np
import pytest
import torch

from alignment.mappings import load_mapping, parse_method
from train.callbacks import Refines, SaveMapping, SelectByCriterion, Selection
from train.data.paired import PairedVectorDataModule
from train.ground.trainer import quiet_trainer
from train.fitting.plan import build_fitter

warnings.filterwarnings("ignore", ".*does not have many workers.*")


class Shrink(Refines):
    """A refinement stand-in: after training, the selected map halved."""

    def on_train_end(self, trainer, pl_module):
        from train.callbacks import selected_by_criterion

        start = selected_by_criterion(trainer, pl_module)
        mapping = start.mapping
        with torch.no_grad():
            for p in mapping.last.parameters():
                p.mul_(0.5)
        self.refined = Selection(mapping, {**start.metrics, "shrunk": 1.0}, "shrunk")


@pytest.mark.parametrize("order", ["refine-first", "save-first"])
def test_the_saved_mapping_is_the_refined_selection(order, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 4)).astype(np.float32)
    y = x @ np.linalg.qr(rng.normal(size=(4, 4)))[0].astype(np.float32)
    dm = PairedVectorDataModule.from_arrays(x, y, val=(x[:100], y[:100]), batch_size=100)
    spec = parse_method("center > fcnn:residual=true,hidden=8")
    module = build_fitter(spec)
    select = SelectByCriterion("semantic", dirpath=str(tmp_path / "ckpt"), save_last=False)
    shrink, save = Shrink(), SaveMapping(str(tmp_path / "run"))
    callbacks = [shrink, save] if order == "refine-first" else [save, shrink]
    torch.manual_seed(0)
    quiet_trainer(3, [select, *callbacks], enable_checkpointing=True,
                  default_root_dir=str(tmp_path)).fit(module, datamodule=dm)
    saved = load_mapping(tmp_path / "run" / "mapping")
    assert saved.fingerprint() == shrink.refined.mapping.fingerprint()
    assert shrink.refined.by == "shrunk"
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["shrunk"] == 1.0 and "selected_epoch" in metrics
