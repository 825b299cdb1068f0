"""Fitting regression methods: a network trained on the squared error of mapped pairs (the FCNN
baseline of Zhao & Eger 2022)."""
from __future__ import annotations

from alignment.mappings import Mapping, MethodSpec
from alignment.mappings.moments import PairStatistics

from .trained import TrainedFit


class RegressionFit(TrainedFit):
    """``fcnn``: three fully connected tanh layers of width ``hidden`` (``residual``: added to
    the input), loss ‖f(x) − y‖² (``alignment.mappings.regression_loss``)."""

    family = "regression"

    def __init__(self, method: str | MethodSpec = "fcnn", lr: float = 1e-3, weight_decay: float = 0.0,
                 hidden: int = 1024, residual: bool = False, semantic_top: float = 1000,
                 semantic_mutual: bool = False, warmup_steps: int = 0,
                 dim: int | None = None) -> None:
        super().__init__(method, lr, weight_decay, semantic_top, semantic_mutual, dim,
                         warmup_steps)
        self.save_hyperparameters()
        self._build_now(dim)

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        """``residual``: x + g(x) with g's output layer at zero (starts as the identity)."""
        return self.method.mapping(dim, self.hparams.hidden, self.hparams.residual)
