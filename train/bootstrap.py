"""Bootstrapping with flows refitted through the Lightning trainer: the loop is
``alignment.unsupervised.bootstrapping``; this module supplies its flow refit (density
matching + nll + the constraint g on the induced pairs, resumable from the round's
``last.ckpt``)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import torch
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.mappings import Mapping
from alignment.mappings.staged import trainable_part
from alignment.unsupervised import bootstrapping
from alignment.unsupervised.bootstrapping import BootstrapConfig, RoundRecord

from .datamodule import PairedVectorDataModule
from .modules import FlowFit
from .trainer import RECIPE_NOISE, quiet_trainer

__all__ = ["BootstrapConfig", "RoundRecord", "bootstrap", "refit_flow"]


def refit_flow(mapping: Mapping, x: np.ndarray, y: np.ndarray, cfg: BootstrapConfig,
               round_dir: Path) -> Mapping:
    """Density matching + nll + constraint on the induced pairs, continuing the current flow;
    ``round_dir/checkpoints/last.ckpt`` is written each epoch and resumed from if present."""
    part = trainable_part(mapping)
    module = FlowFit("realnvp", lr=cfg.lr, nll_weight=cfg.nll_weight, constraint=cfg.constraint,
                     constraint_weight=cfg.constraint_weight, transforms=part.transforms,
                     hidden=part.hidden, layers=part.layers, passive=part.passive)
    module.mapping = mapping.train()
    dm = PairedVectorDataModule.from_arrays(x, y, batch_size=cfg.batch_size, shuffle=True,
                                            seed=cfg.seed)
    ckpt_dir = round_dir / "checkpoints"
    last = ckpt_dir / "last.ckpt"
    saver = ModelCheckpoint(dirpath=str(ckpt_dir), save_last=True, save_top_k=0)
    torch.manual_seed(cfg.seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f"{RECIPE_NOISE}|.*(val_dataloader|"
                                "validation_step|Checkpoint directory).*")
        trainer = quiet_trainer(cfg.epochs, [saver], enable_checkpointing=True,
                                default_root_dir=str(round_dir))
        trainer.fit(module, datamodule=dm, ckpt_path=str(last) if last.is_file() else None)
    return module.mapping.eval()


def bootstrap(mapping: Mapping, x_pool: np.ndarray, y_pool: np.ndarray,
              val: tuple[np.ndarray, np.ndarray], cfg: BootstrapConfig | None = None,
              run_dir: str | Path | None = None, progress: bool = False,
              judge: bootstrapping.Judge | None = None) -> tuple[Mapping, list[RoundRecord]]:
    """``alignment.unsupervised.bootstrapping.bootstrap`` with flows refitted by ``refit_flow``."""
    return bootstrapping.bootstrap(mapping, x_pool, y_pool, val, cfg, refit_flow, run_dir,
                                   progress, judge)
