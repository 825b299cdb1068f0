"""Choosing what a run keeps: the epoch or step a validation criterion likes best, and the
typed ``Selection`` that the saving callbacks consume (a refining callback such as
``SelfTraining`` may replace it)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.evaluation.criteria import CRITERIA
from alignment.errors import InputError
from alignment.mappings import Mapping

from train.ground.contracts import Selectable


@dataclass(frozen=True)
class Selection:
    """What a run keeps: the mapping, the numbers logged where it was chosen, and how."""

    mapping: Mapping
    metrics: dict[str, float] = field(default_factory=dict)
    by: str = "last epoch"


@dataclass(frozen=True)
class KeptStep:
    """The validation a criterion liked best: where (step, epoch), how much, and every number
    logged there (what the saving callbacks write)."""

    criterion: str
    value: float
    step: int | None  # None: resumed from a checkpoint that did not record it
    epoch: int
    metrics: dict[str, float] = field(default_factory=dict)


def check_criterion(criterion: str | None, optional: bool = False) -> None:
    """Refuse a criterion name that ``CRITERIA`` does not know (``None`` only if optional)."""
    if criterion is not None or not optional:
        CRITERIA.lookup(str(criterion))


class Refines(pl.Callback):
    """A callback that, after training, replaces the selection with a refined one
    (``refined``); the saving callbacks take the last refinement over the criterion's pick."""

    refined: Selection | None = None


def logged(trainer: pl.Trainer) -> dict[str, float]:
    """The trainer's scalar metrics as floats."""
    return {k: float(v) for k, v in trainer.callback_metrics.items() if v.numel() == 1}


def selected_by_criterion(trainer: pl.Trainer, pl_module: pl.LightningModule) -> Selection:
    """The mapping of the checkpoint the monitored criterion picked (its weights loaded into
    ``pl_module``, read with ``weights_only``: a checkpoint is never unpickled as code), or
    the last epoch's when nothing is monitored."""
    ckpt = trainer.checkpoint_callback
    best = getattr(ckpt, "best_model_path", "") if ckpt is not None else ""
    if not (best and getattr(ckpt, "monitor", None)):
        return Selection(pl_module.mapping, logged(trainer))
    state = torch.load(best, map_location="cpu", weights_only=True)["state_dict"]
    pl_module.load_state_dict(state)
    metrics = logged(trainer)
    kept = ckpt.kept() if isinstance(ckpt, SelectByCriterion) else None
    if kept is not None:
        # the selected epoch's numbers, not the last epoch's (epochs 0-based, as selected)
        metrics = {**kept.metrics, "selected_epoch": float(kept.epoch),
                   "last_epoch": float(trainer.current_epoch - 1)}
    return Selection(pl_module.mapping, metrics, f"criterion {ckpt.monitor}")


def final_selection(trainer: pl.Trainer, pl_module: pl.LightningModule) -> Selection:
    """The last refinement a ``Refines`` callback made, else the criterion's pick."""
    refined = [c.refined for c in trainer.callbacks if isinstance(c, Refines) and c.refined]
    return refined[-1] if refined else selected_by_criterion(trainer, pl_module)


class RunCheckpoints(ModelCheckpoint):
    """Checkpoints in ``RUN/checkpoints`` unless told otherwise: the run's own folder, which a
    resume reads (so its being non-empty is expected, not warned about)."""

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        own = self.dirpath is None
        if own:
            self.dirpath = str(Path(trainer.default_root_dir) / "checkpoints")
        with warnings.catch_warnings():
            if own:
                warnings.filterwarnings("ignore", message="Checkpoint directory .* not empty")
            super().setup(trainer, pl_module, stage)


class SelectByCriterion(RunCheckpoints):
    """Keep the epoch that a validation criterion (``alignment.evaluation.criteria.CRITERIA``: semantic,
    structural, val_p1) likes best, in the direction the criterion defines, plus ``last.ckpt``
    written after every epoch for resuming. ``criterion=None`` selects the last epoch (a fixed
    epoch budget).

    Checkpoints go to ``RUN/checkpoints`` (not under a logger's version folder), so a run
    resumed from its ``last.ckpt`` continues with the same best score and makes the same choice
    as an uninterrupted one. The chosen epoch and its logged numbers are kept (and resumed) for
    ``SaveMapping``'s ``metrics.json``."""

    def __init__(self, criterion: str | None = "semantic", dirpath: str | None = None,
                 save_last: bool = True, **kwargs) -> None:
        check_criterion(criterion, optional=True)
        mode = CRITERIA[criterion].mode if criterion else "min"
        super().__init__(dirpath=dirpath, monitor=criterion, mode=mode,
                         save_top_k=1, save_last=save_last, **kwargs)
        self.criterion = criterion
        self.best_epoch: int | None = None
        self.best_step: int | None = None
        self.best_metrics: dict[str, float] = {}

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
            self.best_epoch, self.best_step = trainer.current_epoch, trainer.global_step
            self.best_metrics = logged(trainer)
        # Lightning rewrites last.ckpt only when the monitored value improved; a resume must
        # start from the epoch that really was last
        # (from the same hook Lightning itself saves in)
        if self.save_last and at_epoch_end == self._should_save_on_train_epoch_end(trainer) \
                and self._last_global_step_saved != trainer.global_step \
                and not self._should_skip_saving_checkpoint(trainer):
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    def state_dict(self) -> dict:
        return {**super().state_dict(), "best_epoch": self.best_epoch,
                "best_step": self.best_step, "best_metrics": self.best_metrics}

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = dict(state_dict)
        self.best_epoch = state_dict.pop("best_epoch", None)
        self.best_step = state_dict.pop("best_step", None)
        self.best_metrics = state_dict.pop("best_metrics", {})
        super().load_state_dict(state_dict)

    def kept(self) -> KeptStep | None:
        """The chosen epoch as a record (None when nothing is monitored or none was chosen)."""
        if self.criterion is None or self.best_epoch is None or self.best_model_score is None:
            return None
        return KeptStep(self.criterion, float(self.best_model_score), self.best_step,
                        self.best_epoch, dict(self.best_metrics))


class KeepBest(pl.Callback):
    """Keep the weights of the validation a criterion likes best and restore them at the end;
    ``last_state`` keeps the last epoch's (the fixed-epoch comparison), ``best_epoch`` and
    ``best_step`` the chosen one, ``best_metrics`` every number logged there. The kept weights
    and scores are part of a checkpoint's state, so a resumed run selects what an
    uninterrupted one selects."""

    def __init__(self, criterion: str) -> None:
        check_criterion(criterion)
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
            self.best_metrics = logged(trainer)

    def state_dict(self) -> dict:
        return {"best": self.best, "best_epoch": self.best_epoch, "best_step": self.best_step,
                "best_metrics": self.best_metrics, "state": self.state}

    def load_state_dict(self, state_dict: dict) -> None:
        self.best = state_dict.get("best")
        self.best_epoch, self.best_step = state_dict.get("best_epoch"), state_dict.get("best_step")
        self.best_metrics = dict(state_dict.get("best_metrics") or {})
        self.state = state_dict.get("state")

    def kept(self) -> KeptStep | None:
        """The chosen validation as a record (None before any validation had the criterion)."""
        if self.best is None:
            return None
        return KeptStep(self.criterion, self.best, self.best_step, self.best_epoch,
                        dict(self.best_metrics))

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.last_state = _cpu_state(_selectable(pl_module))
        if self.state is not None:
            _selectable(pl_module).load_state_dict(self.state)


def _selectable(pl_module: pl.LightningModule) -> torch.nn.Module:
    """What selection keeps: a module's ``selectable`` (an encoder being fine-tuned) or its
    mapping."""
    return pl_module.selectable if isinstance(pl_module, Selectable) else pl_module.mapping


def _cpu_state(module: torch.nn.Module) -> dict:
    """A copy of the weights in host memory (a GPU model's copies do not stay on the GPU)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}


class LastCheckpoint(RunCheckpoints):
    """``RUN/checkpoints/last.ckpt`` after every validation (for runs validated every N steps,
    such as Joint-Align), so an interrupted run resumes from its last validation with its
    selection state (``KeepBest``'s) inside."""

    def __init__(self, dirpath: str | None = None) -> None:
        super().__init__(dirpath=dirpath, save_top_k=0, save_last=True, monitor=None,
                         save_on_train_epoch_end=False, enable_version_counter=False)

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not self._should_skip_saving_checkpoint(trainer):  # no top-k: last.ckpt alone
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))
