"""Fitting VecMap-style self-learning (Artetxe et al. 2018): no gradient steps; one pass
collects the two unpaired pools, then the similarity-distribution initialisation and the
Procrustes ↔ CSLS-dictionary loop find an orthogonal map."""
from __future__ import annotations

import torch

from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.mappings import LinearMap, Mapping, MethodSpec
from alignment.mappings.moments import PairStatistics
from alignment.mappings.staged import through_pre_stages
from alignment.unsupervised.vecmap import INITS, SelfLearning, self_learning

from .adversarial import check_unpaired
from train.modules.mapping_fit import MappingFit, NoGradientSteps


class SelfLearningFit(NoGradientSteps, MappingFit):
    """``vecmap`` on unpaired rows: the first ``max_rows`` rows of each side (give per-type
    centroids of the most frequent types, most frequent first: the initialisation compares
    n × n similarity distributions) after the closed-form pre-stages (``center`` / ``norm``).
    Run it for one epoch. ``keep_prob``, ``patience`` and ``max_iterations`` are the
    self-learning loop's settings, ``init`` its start: ``similarity`` (published) or
    ``identity`` (``alignment.unsupervised.vecmap.SelfLearning``)."""

    family = "self_learning"

    paired_validation = False

    def __init__(self, method: str | MethodSpec = "vecmap", max_rows: int = 4000, csls_k: int = 10,
                 keep_prob: float = 0.1, patience: int = 50, max_iterations: int = 1000,
                 init: str = "similarity", seed: int = 0, semantic_top: float = 1000, semantic_mutual: bool = False,
                 dim: int | None = None) -> None:
        if max_rows < 2:
            raise InputError(f"must be >= 2, got {max_rows}", parameter="max_rows")
        check_choice(init, INITS, "init")
        if not 0 < keep_prob <= 1:
            raise InputError(f"must be in (0, 1], got {keep_prob}", parameter="keep_prob")
        super().__init__(method, semantic_top, semantic_mutual)
        self.save_hyperparameters()
        self._take_no_steps()
        self._rows: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.history: list[float] = []
        # the initial dictionary's (source row, target row) pairs, once fitted
        self.seed_dictionary: tuple[torch.Tensor, torch.Tensor] | None = None
        self._build_now(dim)

    def _check_method(self, spec):
        return check_unpaired(spec, super()._check_method(spec))

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        return LinearMap(dim)

    def training_step(self, batch, batch_idx: int) -> None:
        self._rows.append((batch[0].detach(), batch[1].detach()))

    def on_train_epoch_end(self) -> None:
        if not self._rows:
            raise RuntimeError("no training batches were seen: the data is empty")
        n = self.hparams.max_rows
        x = torch.cat([r[0] for r in self._rows])[:n]
        y = torch.cat([r[1] for r in self._rows])[:n]
        self._rows.clear()
        x, y = through_pre_stages(self.mapping, x, y)
        hp = self.hparams
        settings = SelfLearning(csls_k=hp.csls_k, keep_prob=hp.keep_prob, patience=hp.patience,
                                max_iterations=hp.max_iterations, init=hp.init, seed=hp.seed)
        self.trainable.set_weight(self_learning(x, y, settings, progress=True))
        self.history = settings.history
        self.seed_dictionary = settings.seed_dictionary
        self.log("self_learning_iterations", float(len(settings.history)))
        self.log("self_learning_objective", settings.history[-1] if settings.history else 0.0)
