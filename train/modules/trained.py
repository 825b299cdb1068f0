"""What every trained-mapping module shares: the registry's loss, Adam, the validation criteria
logged each epoch, and the divergence guard. A family subclasses it and builds its mapping."""
from __future__ import annotations

import importlib
from typing import Any

import pytorch_lightning as pl
import torch

from alignment.evaluation.criteria import score_criteria
from alignment.errors import InputError, TrainingDiverged
from alignment.mappings import (Mapping, Method, MethodSpec, StagedMapping, fit_composition,
                                parse_method)
from alignment.mappings.moments import PairStatistics
from alignment.mappings.staged import through_pre_stages, trainable_part


def resolve_class(path: str) -> type:
    """The class a dotted path names (the registry's ``fitter``): the one place that says which
    module fits a method."""
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


class TrainedFit(pl.LightningModule):
    """Fits a trained method by Adam on paired vectors (``batch = (x, y[, weight])``).

    ``method`` may put closed-form stages first (``center > clp > realnvp``): they are fitted
    exactly from the training pairs' moments before the first step, the trained map learns on
    the pairs pushed through them, and the saved mapping is both (``StagedMapping``).

    Logged each validation epoch, one per entry of ``alignment.evaluation.criteria.CRITERIA``:
    ``semantic`` (higher is better), ``structural`` and ``spectrum`` (lower), ``val_p1``
    (labelled); and ``val_mse``. ``semantic_top`` (a count, or a share of the validation pool
    when < 1) is the number of most confident CSLS pairs both induced-pair criteria use. The mapping is built in ``configure_model`` from the data's statistics unless
    ``dim`` is given (and there are no closed-form stages to fit)."""

    paired_validation = True  # False: validation pools are unpaired, only label-free criteria

    def __init__(self, method: str, lr: float, weight_decay: float, semantic_top: float,
                 semantic_mutual: bool, dim: int | None, warmup_steps: int = 0) -> None:
        super().__init__()
        if warmup_steps < 0:
            raise InputError(f"must be >= 0, got {warmup_steps}", parameter="warmup_steps")
        self.warmup_steps = warmup_steps
        if not semantic_top > 0:
            raise InputError(f"must be > 0 (a count of induced pairs, or a share of the "
                             f"validation pool when < 1), got {semantic_top}",
                             parameter="semantic_top")
        self.spec: MethodSpec = parse_method(method)
        self.method: Method = self._check_method(self.spec)
        self.mapping: Mapping | None = None
        self._val: list[tuple[torch.Tensor, torch.Tensor]] = []
        self._finite: torch.Tensor | None = None

    def _check_method(self, spec: MethodSpec) -> Method:
        method = spec.trained
        if method is None:
            raise InputError(f"'{spec.name}' is closed-form: use train.modules.ClosedFormFit",
                             parameter="method")
        if not isinstance(self, resolve_class(method.fitter)):
            raise InputError(f"'{method.name}' is fitted by {method.fitter}, not "
                             f"{type(self).__name__}", parameter="method")
        return method

    # -- what a family provides ------------------------------------------------------------
    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        raise NotImplementedError

    def loss_settings(self) -> dict[str, Any]:
        """Keyword arguments of the registry's loss for this method."""
        return {}

    # -- shared ------------------------------------------------------------------------------
    def _build_now(self, dim: int | None) -> None:
        """With ``dim`` given and nothing to fit first, build the mapping at once."""
        if dim is not None and not self.spec.pre_stages:
            self.mapping = self.build_mapping(dim, None)

    def configure_model(self) -> None:
        if self.mapping is not None:
            return
        dm = self.trainer.datamodule
        if self.spec.pre_stages:
            moments = dm.pair_moments()
            pre = fit_composition(moments, list(self.spec.pre_stages))
            stats = PairStatistics.from_moments(moments.transformed(*pre.affine()))
            self.mapping = StagedMapping.of(pre, self.build_mapping(stats.dim, stats))
        else:
            stats = dm.pair_statistics()
            self.mapping = self.build_mapping(stats.dim, stats)
        self.hparams.dim = stats.dim

    @property
    def trainable(self) -> Mapping:
        """The part that is trained (without its closed-form stages)."""
        return trainable_part(self.mapping)

    def loss(self, x: torch.Tensor, y: torch.Tensor,
             weight: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        x, y = through_pre_stages(self.mapping, x, y)
        return self.method.loss(self.trainable, x, y, weight, **self.loss_settings())

    def training_step(self, batch, batch_idx: int) -> torch.Tensor:
        weight = batch[2] if len(batch) > 2 else None  # 0 marks padding of distributed shards
        parts = self.loss(batch[0], batch[1], weight)
        distributed = weight is not None and self.trainer.world_size > 1
        if distributed:
            # Each rank's loss is a mean over its own real rows, and DDP averages gradients
            # over ranks: rescale so that the average is the mean over all ranks' real rows
            # (ranks hold different numbers of real rows when the data does not divide evenly).
            local = weight.sum()
            total = self.trainer.strategy.reduce(local.detach().clone(), reduce_op="sum")
            scale = local * self.trainer.world_size / total.clamp_min(1.0)
            parts = {k: v * scale for k, v in parts.items()}
        # a device-side flag, checked once an epoch, so no step waits for a host sync
        finite = torch.isfinite(parts["loss"].detach())
        self._finite = finite if self._finite is None else self._finite & finite
        self.log_dict({f"train_{k}": v for k, v in parts.items()}, on_step=False, on_epoch=True,
                      batch_size=len(batch[0]), sync_dist=distributed)
        return parts["loss"]

    def on_train_epoch_end(self) -> None:
        finite, self._finite = self._finite, None
        if finite is not None and not bool(finite):
            self._diverged("non-finite training loss")

    def validation_step(self, batch, batch_idx: int) -> None:
        self._val.append((self.mapping(batch[0]).detach(), self.mapping.map_target(batch[1])))

    def on_validation_epoch_end(self) -> None:
        if not self._val:
            return
        mapped = torch.cat([m for m, _ in self._val])
        tgt = torch.cat([t for _, t in self._val])
        self._val.clear()
        if not torch.isfinite(mapped).all():
            self._diverged("non-finite mapped validation vectors")
        logged = score_criteria(mapped, tgt, self.hparams.semantic_top,
                                self.hparams.semantic_mutual, self.paired_validation)
        if self.paired_validation:
            logged["val_mse"] = float(((mapped - tgt) ** 2).sum(1).mean())
        self.log_dict(logged)

    def _diverged(self, what: str) -> None:
        raise TrainingDiverged(f"{self.method.name} training diverged ({what}, epoch "
                               f"{self.current_epoch}); lower lr (now {self.hparams.lr}) or use "
                               "a smaller model / loss weight", parameter="lr")

    def configure_optimizers(self):
        """Adam; with ``warmup_steps``, the learning rate rises linearly from lr/warmup_steps to
        lr over the first steps (gradient clipping is the trainer's ``gradient_clip_val``)."""
        optimizer = torch.optim.Adam(self.parameters(), lr=self.hparams.lr,
                                     weight_decay=self.hparams.weight_decay)
        if not self.warmup_steps:
            return optimizer
        warm = self.warmup_steps
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warm))
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": schedule, "interval": "step"}}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mapping(x)
