"""Bootstrapping after an unsupervised fit, as a callback that refines the selection."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import pytorch_lightning as pl

from alignment.atomic import write_text
from alignment.unsupervised.bootstrapping import BootstrapConfig
from alignment.errors import InputError

from train.fitting.bootstrap import bootstrap
from .selection import Refines, Selection, selected_by_criterion


def _no_validation_pools() -> InputError:
    return InputError("bootstrapping selects its round on validation pools: give "
                      "val_fraction > 0", parameter="val_fraction")


@dataclass(eq=False)
class Bootstrap(Refines, BootstrapConfig):
    """After training an unsupervised map: from the epoch the criterion selected, run
    bootstrapping rounds (``alignment.unsupervised.bootstrapping``; its settings are this callback's) on
    the training pools, validated on the validation pools; the round the semantic criterion
    prefers becomes the run's selection. Rounds go to ``RUN/bootstrap/round-N`` (a rerun
    resumes them) with ``RUN/bootstrap/rounds.json``."""

    def __post_init__(self) -> None:
        self.check()
        self.refined = None

    def check_data(self, datamodule: pl.LightningDataModule) -> None:
        """Before training: the data must hold validation pools to select a round on."""
        if getattr(getattr(datamodule, "hparams", None), "val_fraction", None) == 0:
            raise _no_validation_pools()

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        dm = trainer.datamodule
        if dm.val is None:
            raise _no_validation_pools()
        start = selected_by_criterion(trainer, pl_module)
        out = Path(trainer.default_root_dir) / "bootstrap"
        mapping, rounds = bootstrap(start.mapping, dm.x.numpy(), dm.y.numpy(),
                                    (dm.val[0].numpy(), dm.val[1].numpy()), self,
                                    run_dir=out, progress=True)
        write_text(out / "rounds.json", json.dumps([asdict(r) for r in rounds], indent=2))
        best = max(rounds, key=lambda r: r.semantic)
        self.refined = Selection(mapping, {**start.metrics, "bootstrap_round": float(best.round),
                                           "bootstrap_semantic": best.semantic},
                                 f"{start.by}, then bootstrap round {best.round}")
