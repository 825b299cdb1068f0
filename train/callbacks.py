"""Callbacks: choose the epoch by a validation criterion, and save the chosen mapping with its
``metrics.json``, ``run.json`` and export (closed-form fits take no optimizer step, so
Lightning's own checkpointing would write nothing)."""
from __future__ import annotations

import copy
import warnings
from pathlib import Path

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.criteria import CRITERIA
from alignment.errors import InputError
from alignment.export import export_remapped
from alignment.provenance import RunRecord

from .reporting import write_metrics


class SelectByCriterion(ModelCheckpoint):
    """Keep the epoch that a validation criterion (``alignment.criteria.CRITERIA``: semantic,
    structural, val_p1) likes best, in the direction the criterion defines, plus ``last.ckpt``
    written after every epoch for resuming. ``criterion=None`` selects the last epoch (a fixed
    epoch budget).

    Checkpoints go to ``RUN/checkpoints`` (not under a logger's version folder), so a run
    resumed from its ``last.ckpt`` continues with the same best score and makes the same choice
    as an uninterrupted one. The chosen epoch and its logged numbers are kept (and resumed) for
    ``SaveMapping``'s ``metrics.json``."""

    def __init__(self, criterion: str | None = "semantic", dirpath: str | None = None,
                 save_last: bool = True, **kwargs) -> None:
        if criterion is not None and criterion not in CRITERIA:
            raise InputError(f"unknown criterion '{criterion}' (choose {sorted(CRITERIA)})",
                             parameter="criterion")
        mode = CRITERIA[criterion].mode if criterion else "min"
        super().__init__(dirpath=dirpath, monitor=criterion, mode=mode,
                         save_top_k=1, save_last=save_last, **kwargs)
        self.criterion = criterion
        self.best_epoch: int | None = None
        self.best_metrics: dict[str, float] = {}

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        own = self.dirpath is None
        if own:
            self.dirpath = str(Path(trainer.default_root_dir) / "checkpoints")
        with warnings.catch_warnings():
            if own:  # RUN/checkpoints holds this run's own checkpoints (a resume reads them)
                warnings.filterwarnings("ignore", message="Checkpoint directory .* not empty")
            super().setup(trainer, pl_module, stage)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        before = self.best_model_path
        super().on_train_epoch_end(trainer, pl_module)
        self._after_epoch(before, trainer, at_epoch_end=True)

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        before = self.best_model_path
        super().on_validation_end(trainer, pl_module)
        self._after_epoch(before, trainer, at_epoch_end=False)

    def _after_epoch(self, before: str, trainer: pl.Trainer, at_epoch_end: bool) -> None:
        if trainer.sanity_checking:
            return
        # a new best checkpoint file means this epoch is the best so far
        if self.best_model_path and self.best_model_path != before:
            self.best_epoch = trainer.current_epoch
            self.best_metrics = {k: float(v) for k, v in trainer.callback_metrics.items()
                                 if v.numel() == 1}
        # Lightning rewrites last.ckpt only when the monitored value improved; a resume must
        # start from the epoch that really was last
        # (from the same hook Lightning itself saves in)
        if self.save_last and at_epoch_end == self._should_save_on_train_epoch_end(trainer) \
                and self._last_global_step_saved != trainer.global_step \
                and not self._should_skip_saving_checkpoint(trainer):
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    def state_dict(self) -> dict:
        return {**super().state_dict(), "best_epoch": self.best_epoch,
                "best_metrics": self.best_metrics}

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = dict(state_dict)
        self.best_epoch = state_dict.pop("best_epoch", None)
        self.best_metrics = state_dict.pop("best_metrics", {})
        super().load_state_dict(state_dict)


class KeepBest(pl.Callback):
    """Keep the weights of the validation a criterion likes best and restore them at the end;
    ``last_state`` keeps the last epoch's (the fixed-epoch comparison), ``best_epoch`` and
    ``best_step`` the chosen one, ``best_metrics`` every number logged there. The kept weights
    and scores are part of a checkpoint's state, so a resumed run selects what an
    uninterrupted one selects."""

    def __init__(self, criterion: str) -> None:
        if criterion not in CRITERIA:
            raise InputError(f"unknown criterion '{criterion}' (choose {sorted(CRITERIA)})",
                             parameter="criterion")
        self.criterion, self.mode = criterion, CRITERIA[criterion].mode
        self.best: float | None = None
        self.state: dict | None = None
        self.last_state: dict | None = None
        self.best_epoch: int | None = None
        self.best_step: int | None = None
        self.best_metrics: dict[str, float] = {}

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.sanity_checking:
            return
        value = trainer.callback_metrics.get(self.criterion)
        if value is None or not torch.isfinite(value):
            return
        value = float(value)
        if self.best is None or (value > self.best if self.mode == "max" else value < self.best):
            self.best, self.state = value, _cpu_state(_selectable(pl_module))
            self.best_epoch, self.best_step = trainer.current_epoch, trainer.global_step
            self.best_metrics = {k: float(v) for k, v in trainer.callback_metrics.items()
                                 if v.numel() == 1}

    def state_dict(self) -> dict:
        return {"best": self.best, "best_epoch": self.best_epoch, "best_step": self.best_step,
                "best_metrics": self.best_metrics, "state": self.state}

    def load_state_dict(self, state_dict: dict) -> None:
        self.best = state_dict.get("best")
        self.best_epoch, self.best_step = state_dict.get("best_epoch"), state_dict.get("best_step")
        self.best_metrics = dict(state_dict.get("best_metrics") or {})
        self.state = state_dict.get("state")

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.last_state = _cpu_state(_selectable(pl_module))
        if self.state is not None:
            _selectable(pl_module).load_state_dict(self.state)


def _selectable(pl_module: pl.LightningModule) -> torch.nn.Module:
    """What selection keeps: a module's ``selectable`` (an encoder being fine-tuned) or its
    mapping."""
    return getattr(pl_module, "selectable", None) or pl_module.mapping


def _cpu_state(module: torch.nn.Module) -> dict:
    """A copy of the weights in host memory (a GPU model's copies do not stay on the GPU)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}


class LastCheckpoint(ModelCheckpoint):
    """``RUN/checkpoints/last.ckpt`` after every validation (for runs validated every N steps,
    such as Joint-Align), so an interrupted run resumes from its last validation with its
    selection state (``KeepBest``'s) inside."""

    def __init__(self, dirpath: str | None = None) -> None:
        super().__init__(dirpath=dirpath, save_top_k=0, save_last=True, monitor=None,
                         save_on_train_epoch_end=False, enable_version_counter=False)

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not self._should_skip_saving_checkpoint(trainer):  # no top-k: last.ckpt alone
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        own = self.dirpath is None
        if own:
            self.dirpath = str(Path(trainer.default_root_dir) / "checkpoints")
        with warnings.catch_warnings():
            if own:
                warnings.filterwarnings("ignore", message="Checkpoint directory .* not empty")
            super().setup(trainer, pl_module, stage)


class CollapseGuard(pl.Callback):
    """Stop a trained map whose training blew up without going NaN: an epoch's mean training
    loss above ``loss_factor`` × the lowest so far, or (with validation) the semantic criterion
    more than ``semantic_drop`` below its best. The weights of the lowest-loss epoch are put
    back, training stops, and the epoch is reported (``collapsed_epoch``) with one warning that
    names the learning rate. NaN/inf losses are the divergence guard's (an error)."""

    def __init__(self, loss_factor: float = 10.0, semantic_drop: float = 0.2) -> None:
        if loss_factor <= 1:
            raise InputError("must be > 1", parameter="loss_factor")
        self.loss_factor, self.semantic_drop = loss_factor, semantic_drop
        self.best_loss = float("inf")
        self.best_semantic = -float("inf")
        self.best_state: dict | None = None
        self.collapsed_epoch: int | None = None

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        import copy
        import math

        metrics = trainer.callback_metrics
        loss = float(metrics.get("train_loss", float("nan")))
        semantic = float(metrics["semantic"]) if "semantic" in metrics else None
        if not math.isfinite(loss):
            return  # the module's divergence check raises for these
        blown = loss > self.loss_factor * self.best_loss
        dropped = semantic is not None and semantic < self.best_semantic - self.semantic_drop
        if blown or dropped:
            self.collapsed_epoch = trainer.current_epoch
            if self.best_state is not None:
                pl_module.load_state_dict(self.best_state)
            trainer.should_stop = True
            why = (f"training loss {loss:.4g} > {self.loss_factor:g} × best {self.best_loss:.4g}"
                   if blown else f"semantic criterion {semantic:.3f} fell more than "
                   f"{self.semantic_drop:g} below its best {self.best_semantic:.3f}")
            lr = getattr(pl_module.hparams, "lr", None)
            warnings.warn(f"training collapsed at epoch {self.collapsed_epoch} ({why}); stopped "
                          f"and restored the lowest-loss epoch's weights — lower lr (now {lr})")
            return
        if semantic is not None:
            self.best_semantic = max(self.best_semantic, semantic)
        if loss < self.best_loss:
            self.best_loss = loss
            self.best_state = copy.deepcopy(pl_module.state_dict())

    def state_dict(self) -> dict:
        return {"best_loss": self.best_loss, "best_semantic": self.best_semantic,
                "collapsed_epoch": self.collapsed_epoch}

    def load_state_dict(self, state_dict: dict) -> None:
        self.best_loss = state_dict.get("best_loss", float("inf"))
        self.best_semantic = state_dict.get("best_semantic", -float("inf"))
        self.collapsed_epoch = state_dict.get("collapsed_epoch")


class SaveMapping(pl.Callback):
    """At the end of training: ``mapping/``, ``metrics.json``, ``run.json`` and (when the data
    came from an encoder) the remapped-encoder ``export/`` in the run directory."""

    def __init__(self, dirpath: str | None = None, src_lang: str | None = None,
                 tgt_lang: str | None = None) -> None:
        self.dirpath = dirpath
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def run_dir(self, trainer: pl.Trainer) -> Path:
        return Path(self.dirpath or trainer.default_root_dir)

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        mapping = getattr(pl_module, "mapping", None)
        if mapping is None or not trainer.is_global_zero:
            return
        out = self.run_dir(trainer)
        ckpt = trainer.checkpoint_callback
        best = getattr(ckpt, "best_model_path", "") if ckpt is not None else ""
        if best and getattr(ckpt, "monitor", None) and \
                not getattr(pl_module, "selected_after_training", False):
            # the epoch the monitored criterion picked, not the last one; weights only: a
            # checkpoint is never unpickled as code
            import torch

            state = torch.load(best, map_location="cpu", weights_only=True)["state_dict"]
            pl_module.load_state_dict(state)
            mapping = pl_module.mapping
        mapping.save(out / "mapping")
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items() if v.numel() == 1}
        if isinstance(ckpt, SelectByCriterion) and ckpt.best_epoch is not None:
            # the selected epoch's numbers, not the last epoch's
            metrics = {**ckpt.best_metrics, "selected_epoch": float(ckpt.best_epoch),
                       "last_epoch": float(trainer.current_epoch - 1)}  # 0-based, as selected
        write_metrics(out / "metrics.json", metrics)
        data = trainer.datamodule.provenance.with_languages(self.src_lang, self.tgt_lang)
        RunRecord(mapping.describe(), mapping.fingerprint(), data).write(out)
        if data.encoder is not None:
            export_remapped(out / "export", mapping, data, overwrite=True)  # inside the run


class Bootstrap(pl.Callback):
    """After training an unsupervised map: load the epoch the checkpoint callback selected and
    run bootstrapping rounds (``train.bootstrap``) on the training pools, validated on the
    validation pools; the round the semantic criterion prefers becomes the mapping. Rounds go
    to ``RUN/bootstrap/round-N`` (a rerun resumes them) with ``RUN/bootstrap/rounds.json``.
    List it before ``SaveMapping``."""

    def __init__(self, rounds: int = 3, top: int = 10000, constraint: str = "cross_correlation",
                 constraint_weight: float = 1.0, epochs: int = 3, lr: float = 1e-4,
                 mutual: bool = True, batch_size: int = 512, seed: int = 0) -> None:
        from .bootstrap import BootstrapConfig

        self.config = BootstrapConfig(rounds=rounds, top=top, constraint=constraint,
                                      constraint_weight=constraint_weight, epochs=epochs, lr=lr,
                                      mutual=mutual, batch_size=batch_size, seed=seed)
        self.config.check()

    def check_data(self, datamodule: pl.LightningDataModule) -> None:
        """Before training: the data must hold validation pools to select a round on."""
        if getattr(getattr(datamodule, "hparams", None), "val_fraction", None) == 0:
            raise InputError("bootstrapping selects its round on validation pools: give "
                             "val_fraction > 0", parameter="val_fraction")

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        import json
        from dataclasses import asdict

        import torch

        from alignment.atomic import write_text

        from .bootstrap import bootstrap

        dm = trainer.datamodule
        if dm.val is None:
            raise InputError("bootstrapping selects its round on validation pools: give "
                             "val_fraction > 0", parameter="val_fraction")
        ckpt = trainer.checkpoint_callback
        best = getattr(ckpt, "best_model_path", "") if ckpt is not None else ""
        if best and getattr(ckpt, "monitor", None):
            state = torch.load(best, map_location="cpu", weights_only=True)["state_dict"]
            pl_module.load_state_dict(state)
        out = Path(trainer.default_root_dir) / "bootstrap"
        mapping, rounds = bootstrap(pl_module.mapping, dm.x.numpy(), dm.y.numpy(),
                                    (dm.val[0].numpy(), dm.val[1].numpy()), self.config,
                                    run_dir=out, progress=True)
        write_text(out / "rounds.json", json.dumps([asdict(r) for r in rounds], indent=2))
        pl_module.mapping = mapping
        pl_module.selected_after_training = True


class SaveEncoder(pl.Callback):
    """At the end of fine-tuning (after selection restored the chosen step): ``metrics.json``
    and ``export/`` — the encoder as a plain HF model directory with its head (``norm``: each
    language's running mean/variance from up to ``norm_sentences`` training sentences per
    corpus; ``identity``: none) and every language's NORM statistics. List it after
    ``KeepBest``."""

    def __init__(self, dirpath: str | None = None, head: str = "norm",
                 norm_sentences: int = 2000) -> None:
        if head not in ("norm", "identity"):
            raise InputError(f"must be 'norm' or 'identity', got '{head}'", parameter="head")
        if norm_sentences < 1:
            raise InputError(f"must be >= 1, got {norm_sentences}", parameter="norm_sentences")
        self.dirpath, self.head, self.norm_sentences = dirpath, head, norm_sentences

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.is_global_zero:
            return
        from .encoder_export import export_fine_tuned

        out = Path(self.dirpath or trainer.default_root_dir)
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items() if v.numel() == 1}
        keep = next((c for c in trainer.callbacks if isinstance(c, KeepBest)), None)
        extra = {"fine_tuned": "joint_align", "hyperparameters": dict(pl_module.hparams)}
        if keep is not None and keep.best is not None:  # the selected step's numbers
            metrics = {**keep.best_metrics, "selected_step": float(keep.best_step),
                       "selected_value": keep.best, "last_step": float(trainer.global_step)}
            extra["selection"] = {"criterion": keep.criterion, "step": keep.best_step,
                                  "value": keep.best}
        write_metrics(out / "metrics.json", metrics)
        export_fine_tuned(trainer.datamodule, out / "export", self.head, self.norm_sentences, extra)
