"""Gradient-trained maps on paired vectors: the registry's loss, Adam (optionally warmed up),
distributed-shard weighting. Flow and regression families subclass it and build their map."""
from __future__ import annotations

from typing import Any

import torch

from alignment.errors import InputError
from alignment.mappings import Method, MethodSpec
from alignment.mappings.staged import through_pre_stages

from .mapping_fit import MappingFit


class TrainedFit(MappingFit):
    """Fits a trained method by Adam on paired vectors (``batch = (x, y[, weight])``), its loss
    the registry's ``loss`` with the family's ``loss_settings``. Logged each validation epoch:
    the criteria (``semantic``, ``structural``, ``spectrum``, ``mmd``, labelled ``val_p1``) and
    ``val_mse``."""

    def __init__(self, method: str | MethodSpec, lr: float, weight_decay: float, semantic_top: float,
                 semantic_mutual: bool, dim: int | None, warmup_steps: int = 0) -> None:
        if warmup_steps < 0:
            raise InputError(f"must be >= 0, got {warmup_steps}", parameter="warmup_steps")
        super().__init__(method, semantic_top, semantic_mutual)
        self.warmup_steps = warmup_steps

    def _check_method(self, spec: MethodSpec) -> Method:
        method = super()._check_method(spec)
        if method.loss is None:
            raise InputError(f"'{method.name}' has no pair loss in the registry; "
                             f"{type(self).__name__} trains on one", parameter="method")
        return method

    def loss_settings(self) -> dict[str, Any]:
        """Keyword arguments of the registry's loss for this method."""
        return {}

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
        self._track_finite(parts["loss"])
        self.log_dict({f"train_{k}": v for k, v in parts.items()}, on_step=False, on_epoch=True,
                      batch_size=len(batch[0]), sync_dist=distributed)
        return parts["loss"]

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
