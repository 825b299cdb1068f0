"""Bootstrapping with flows refitted through the Lightning trainer: the loop is
``alignment.unsupervised.bootstrapping``; this module supplies its flow refits — ``adversarial``
(Algorithm 1 as published: GAN-Real-NVP on the two pools + the constraint g on the induced
pairs) and ``supervised`` (density matching + nll + g on the induced pairs) — each resumable
from the round's ``last.ckpt``."""
from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path

import numpy as np
import torch
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.mappings import Mapping, MethodSpec, parse_method
from alignment.mappings.staged import trainable_part
from alignment.unsupervised import bootstrapping
from alignment.unsupervised.bootstrapping import BootstrapConfig, RoundRecord

from train.data.paired import PairedVectorDataModule
from train.data.unpaired import UnpairedVectorDataModule
from train.fitting.plan import epochs_for_updates, plan_fit
from train.fitting.trainer import RECIPE_NOISE, quiet_trainer
from train.modules.constrained_gan import ConstrainedGanFit

__all__ = ["BootstrapConfig", "RoundRecord", "bootstrap", "refit_flow"]

REFIT_METHODS = {"adversarial": "gan_realnvp", "supervised": "realnvp"}


@cache
def refit_method(refit: str) -> MethodSpec:
    """The registered method a refit continues (parsed once, not once a round)."""
    return parse_method(REFIT_METHODS[refit], "refit")


def refit_flow(mapping: Mapping, x: np.ndarray, y: np.ndarray, cfg: BootstrapConfig,
               round_dir: Path, pools: tuple[np.ndarray, np.ndarray] | None = None) -> Mapping:
    """Continue the current flow on the induced pairs (``x``, ``y``) as ``cfg.refit`` says
    (``adversarial`` also reads the two ``pools``); ``round_dir/checkpoints/last.ckpt`` is
    written each epoch and resumed from if present."""
    part = trainable_part(mapping)
    flow = dict(transforms=part.transforms, hidden=part.hidden, layers=part.layers,
                passive=part.passive)
    if cfg.refit == "adversarial":
        if pools is None:
            raise ValueError("the adversarial refit trains on the two pools: pass pools")
        # GAN-Real-NVP's plan (its registry defaults and these settings) with the constraint
        gan = plan_fit(refit_method(cfg.refit), **{"lr": cfg.lr, **cfg.adversarial, **flow,
                                                   "map_steps": cfg.map_steps})
        module = ConstrainedGanFit(gan.spec, constraint=cfg.constraint,
                                   constraint_weight=cfg.constraint_weight,
                                   constraint_batch=cfg.batch_size,
                                   critic_warmup=cfg.critic_warmup, seed=cfg.seed,
                                   **gan.settings)
        module.set_induced(torch.from_numpy(x), torch.from_numpy(y))
        n = min(len(pools[0]), len(pools[1]))
        dm = UnpairedVectorDataModule.from_arrays(pools[0][:n], pools[1][:n],
                                                  batch_size=cfg.batch_size, shuffle=True,
                                                  seed=cfg.seed)
        updates = cfg.critic_warmup + cfg.map_steps * module.hparams.critic_steps
        epochs = epochs_for_updates(updates, n, cfg.batch_size)
    else:
        module = plan_fit(refit_method(cfg.refit), lr=cfg.lr, nll_weight=cfg.nll_weight,
                          constraint=cfg.constraint, constraint_weight=cfg.constraint_weight,
                          **flow).build()
        dm = PairedVectorDataModule.from_arrays(x, y, batch_size=cfg.batch_size, shuffle=True,
                                                seed=cfg.seed)
        epochs = cfg.epochs
    module.start_from(mapping.train())
    ckpt_dir = round_dir / "checkpoints"
    last = ckpt_dir / "last.ckpt"
    saver = ModelCheckpoint(dirpath=str(ckpt_dir), save_last=True, save_top_k=0)
    torch.manual_seed(cfg.seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f"{RECIPE_NOISE}|.*(val_dataloader|"
                                "validation_step|Checkpoint directory).*")
        trainer = quiet_trainer(epochs, [saver], enable_checkpointing=True,
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
