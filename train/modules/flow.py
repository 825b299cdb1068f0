"""Fitting normalizing-flow methods (Real-NVP density matching, Zhao & Eger 2022)."""
from __future__ import annotations

from alignment.unsupervised.constraints import get_constraint
from alignment.errors import InputError
from alignment.mappings import Mapping, MethodSpec, RealNVPMapping, constant_dimensions
from alignment.mappings.flow import CONSTANT_REL_STD
from alignment.mappings.moments import PairStatistics

from .trained import TrainedFit


class FlowFit(TrainedFit):
    """Real-NVP: two coupling flows through a shared Gaussian latent, trained on density
    matching (``dual``: both directions) + ``nll_weight`` × density modelling (``nll_per``
    dimension or vector; ``nll_epochs``: only in the first that many epochs, a density
    warm-up); the loss is ``alignment.mappings.density_matching_loss``.
    Dimensions constant in the training data (std below ``constant_rel_std`` × the median;
    0 turns the check off) go around the flows; the ones found are recorded as ``passive``.
    ``constraint`` (self-training's g: cross_correlation, graph, procrustes) adds
    ``constraint_weight`` × g(f(x), y) to the loss."""

    family = "flow"

    def __init__(self, method: str | MethodSpec = "realnvp", lr: float = 1e-3, weight_decay: float = 0.0,
                 nll_weight: float = 0.1, dual: bool = True, transforms: int = 4,
                 hidden: int = 256, layers: int = 2, warm_start: bool = False,
                 semantic_top: float = 1000, semantic_mutual: bool = False,
                 nll_per: str = "dimension", constant_rel_std: float = CONSTANT_REL_STD,
                 passive: list[int] | None = None, warmup_steps: int = 0,
                 constraint: str | None = None, constraint_weight: float = 1.0,
                 nll_epochs: int | None = None, dim: int | None = None) -> None:
        if nll_per not in ("dimension", "vector"):
            raise InputError(f"must be 'dimension' or 'vector', got '{nll_per}'", parameter="nll_per")
        if constraint is not None:
            get_constraint(constraint)  # an unknown name fails here, before any data is read
        if nll_epochs is not None and nll_epochs < 0:
            raise InputError(f"must be >= 0, got {nll_epochs}", parameter="nll_epochs")
        if constant_rel_std < 0:
            raise InputError(f"must be >= 0, got {constant_rel_std}", parameter="constant_rel_std")
        super().__init__(method, lr, weight_decay, semantic_top, semantic_mutual, dim,
                         warmup_steps)
        self.save_hyperparameters()
        self._build_now(dim)

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        """``warm_start``: the flow starts as the identity (zero coupling outputs, one shared
        standardisation), so ``center > clp > realnvp`` starts exactly at ``center > clp``."""
        return build_flow(dim, stats, self.hparams)

    def loss_settings(self) -> dict:
        hp = self.hparams
        density_on = hp.nll_epochs is None or self.current_epoch < hp.nll_epochs
        settings = {"dual": hp.dual, "nll_weight": hp.nll_weight if density_on else 0.0,
                    "nll_per": hp.nll_per}
        if hp.constraint is not None:
            settings.update(constraint=get_constraint(hp.constraint),
                            constraint_weight=hp.constraint_weight)
        return settings


def build_flow(dim: int, stats: PairStatistics | None, hp) -> RealNVPMapping:
    """A Real-NVP mapping from a fitter's settings (``transforms``, ``hidden``, ``layers``,
    ``passive``, ``constant_rel_std``, ``warm_start``): constant dimensions found from the
    training statistics (recorded in ``hp.passive``), fixed standardisation, and with
    ``warm_start`` identity flows on one shared standardisation."""
    passive = hp.passive
    if passive is None:
        passive = constant_dimensions(stats, hp.constant_rel_std) \
            if stats is not None and hp.constant_rel_std > 0 else []
        hp.passive = passive
    mapping = RealNVPMapping(dim, hp.transforms, hp.hidden, hp.layers, passive=passive)
    if stats is not None:
        mapping.standardise_with(stats, shared=hp.warm_start)
    if hp.warm_start:
        mapping.start_as_identity()
    return mapping
