"""Fitting normalizing-flow methods (Real-NVP density matching, Zhao & Eger 2022)."""
from __future__ import annotations

from alignment.mappings import Mapping
from alignment.moments import PairStatistics

from .trained import TrainedFit


class FlowFit(TrainedFit):
    """Real-NVP: two coupling flows through a shared Gaussian latent, trained on density
    matching (``dual``: both directions) + ``nll_weight`` × density modelling; the loss is
    ``alignment.mappings.density_matching_loss``."""

    family = "train.modules.FlowFit"

    def __init__(self, method: str = "realnvp", lr: float = 1e-3, weight_decay: float = 0.0,
                 nll_weight: float = 0.1, dual: bool = True, transforms: int = 4,
                 hidden: int = 256, layers: int = 2, warm_start: bool = False,
                 semantic_top: float = 1000, semantic_mutual: bool = False,
                 dim: int | None = None) -> None:
        super().__init__(method, lr, weight_decay, semantic_top, semantic_mutual, dim)
        self.save_hyperparameters()
        self._build_now(dim)

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        """``warm_start``: the flow starts as the identity (zero coupling outputs, one shared
        standardisation), so ``center > clp > realnvp`` starts exactly at ``center > clp``."""
        hp = self.hparams
        mapping = self.method.mapping(dim, hp.transforms, hp.hidden, hp.layers)
        if stats is not None:
            mapping.standardise_with(stats, shared=hp.warm_start)
        if hp.warm_start:
            mapping.start_as_identity()
        return mapping

    def loss_settings(self) -> dict:
        return {"dual": self.hparams.dual, "nll_weight": self.hparams.nll_weight}
