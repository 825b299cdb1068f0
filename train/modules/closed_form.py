"""Fitting closed-form methods: one streaming pass accumulates pair moments (all-reduced across
devices), then the composition is solved exactly."""
from __future__ import annotations

import pytorch_lightning as pl
import torch

from alignment.errors import InputError
from alignment.mappings import Mapping, MethodSpec, fit_composition
from alignment.mappings.moments import PairMoments

from .mapping_fit import HoldsMethod, NoGradientSteps


class ClosedFormFit(HoldsMethod, NoGradientSteps, pl.LightningModule):
    """Fits identity, centring, NORM, CLP, UMD, least squares and ordered compositions
    (``"center > clp"``). Takes no optimizer step: run it for one epoch. The solved mapping is
    ``self.mapping``."""

    family = "closed_form"

    def __init__(self, method: str | MethodSpec = "clp") -> None:
        super().__init__()
        spec = self.take_method(method)
        if spec.trained is not None:
            raise InputError(f"'{spec.name}' is trained: its fitter family is '{spec.fitter}'",
                             parameter="method")
        self.spec = spec
        self.save_hyperparameters()
        self._take_no_steps()
        self.moments: PairMoments | None = None
        self.mapping: Mapping | None = None

    def training_step(self, batch: tuple[torch.Tensor, ...], batch_idx: int) -> None:
        x, y = batch[0], batch[1]
        weight = batch[2] if len(batch) > 2 else None  # 0 marks padding of distributed shards
        if self.moments is None:
            self.moments = PairMoments.zeros(x.shape[1], x.device)
        self.moments.update(x, y, weight)

    def on_train_epoch_end(self) -> None:
        if self.moments is None:
            raise RuntimeError("no training batches were seen: the data is empty")
        flat = self.trainer.strategy.reduce(self.moments.flat(), reduce_op="sum")
        moments = PairMoments.from_flat(flat.cpu(), self.moments.dim)
        self.mapping = fit_composition(moments, self.spec)
        self.log("pairs", float(moments.n), on_epoch=True, rank_zero_only=True)  # already summed
        self.moments = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.mapping is None:
            raise RuntimeError("the mapping is not fitted yet")
        return self.mapping(x)
