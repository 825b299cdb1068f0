"""Self-training (Zhao & Eger 2022, Algorithm 1) with flows refitted through the Lightning
trainer: the loop is ``alignment.unsupervised.self_training``; this module supplies its flow
refits — ``adversarial`` (Algorithm 1 as published: GAN-Real-NVP on the two pools + the
constraint g on the induced pairs) and ``supervised`` (density matching + nll + g on the induced
pairs), each resumable from the round's ``last.ckpt`` — and ``SelfTraining``, the callback that
runs the loop after an unsupervised fit."""
from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.atomic import write_text
from alignment.errors import InputError
from alignment.mappings import Mapping, MethodSpec, parse_method
from alignment.mappings.staged import trainable_part
from alignment.unsupervised import self_training
from alignment.unsupervised.self_training import RoundRecord, SelfTrainingConfig

from train.callbacks import Refines, Selection, selected_by_criterion
from train.data.paired import PairedVectorDataModule
from train.data.unpaired import UnpairedVectorDataModule
from train.ground.trainer import RECIPE_NOISE, epochs_for_updates, quiet_trainer
from train.modules import FlowFit

from .constrained_gan import ConstrainedGanFit

__all__ = ["RoundRecord", "SelfTraining", "SelfTrainingConfig", "refit_flow", "self_train"]

REFIT_METHODS = {"adversarial": "gan_realnvp", "supervised": "realnvp"}


@cache
def refit_method(refit: str) -> MethodSpec:
    """The registered method a refit continues (parsed once, not once a round)."""
    return parse_method(REFIT_METHODS[refit], "refit")


def refit_settings(spec: MethodSpec, **settings) -> dict:
    """The refit's fitter settings: the registry's defaults for its method, then ``settings``."""
    return {**spec.trained.defaults, **settings}


def refit_flow(mapping: Mapping, x: np.ndarray, y: np.ndarray, cfg: SelfTrainingConfig,
               round_dir: Path, pools: tuple[np.ndarray, np.ndarray] | None = None) -> Mapping:
    """Continue the current flow on the induced pairs (``x``, ``y``) as ``cfg.refit`` says
    (``adversarial`` also reads the two ``pools``); ``round_dir/checkpoints/last.ckpt`` is
    written each epoch and resumed from if present."""
    part = trainable_part(mapping)
    flow = dict(transforms=part.transforms, hidden=part.hidden, layers=part.layers,
                passive=part.passive)
    spec = refit_method(cfg.refit)
    if cfg.refit == "adversarial":
        if pools is None:
            raise ValueError("the adversarial refit trains on the two pools: pass pools")
        # GAN-Real-NVP's settings (its registry defaults and these) with the constraint
        settings = refit_settings(spec, **{"lr": cfg.lr, **cfg.adversarial, **flow,
                                           "map_steps": cfg.map_steps})
        module = ConstrainedGanFit(spec, constraint=cfg.constraint,
                                   constraint_weight=cfg.constraint_weight,
                                   constraint_batch=cfg.batch_size,
                                   critic_warmup=cfg.critic_warmup, seed=cfg.seed, **settings)
        module.set_induced(torch.from_numpy(x), torch.from_numpy(y))
        n = min(len(pools[0]), len(pools[1]))
        dm = UnpairedVectorDataModule.from_arrays(pools[0][:n], pools[1][:n],
                                                  batch_size=cfg.batch_size, shuffle=True,
                                                  seed=cfg.seed)
        updates = cfg.critic_warmup + cfg.map_steps * module.hparams.critic_steps
        epochs = epochs_for_updates(updates, n, cfg.batch_size)
    else:
        module = FlowFit(spec, **refit_settings(
            spec, lr=cfg.lr, nll_weight=cfg.nll_weight, constraint=cfg.constraint,
            constraint_weight=cfg.constraint_weight, **flow))
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


def self_train(mapping: Mapping, x_pool: np.ndarray, y_pool: np.ndarray,
               val: tuple[np.ndarray, np.ndarray], cfg: SelfTrainingConfig | None = None,
               run_dir: str | Path | None = None, progress: bool = False,
               judge: self_training.Judge | None = None) -> tuple[Mapping, list[RoundRecord]]:
    """``alignment.unsupervised.self_training.self_train`` with flows refitted by
    ``refit_flow``."""
    return self_training.self_train(mapping, x_pool, y_pool, val, cfg, refit_flow, run_dir,
                                    progress, judge)


def _no_validation_pools() -> InputError:
    return InputError("self-training selects its round on validation pools: give "
                      "val_fraction > 0", parameter="val_fraction")


@dataclass(eq=False)
class SelfTraining(Refines, SelfTrainingConfig):
    """After training an unsupervised map: from the epoch the criterion selected, run
    self-training rounds (``alignment.unsupervised.self_training``; its settings are this
    callback's) on the training pools, validated on the validation pools; the round the semantic
    criterion prefers becomes the run's selection. Rounds go to ``RUN/self-training/round-N`` (a
    rerun resumes them) with ``RUN/self-training/rounds.json``."""

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
        out = Path(trainer.default_root_dir) / "self-training"
        mapping, rounds = self_train(start.mapping, dm.x.numpy(), dm.y.numpy(),
                                     (dm.val[0].numpy(), dm.val[1].numpy()), self,
                                     run_dir=out, progress=True)
        write_text(out / "rounds.json", json.dumps([asdict(r) for r in rounds], indent=2))
        best = max(rounds, key=lambda r: r.semantic)
        self.refined = Selection(mapping, {**start.metrics,
                                           "self_training_round": float(best.round),
                                           "self_training_semantic": best.semantic},
                                 f"{start.by}, then self-training round {best.round}")
