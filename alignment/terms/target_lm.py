"""The LM term: a target-side LM's mean token log-probability of the MT output (fluency, which
no comparison with the source sees). The LM is the scorer's (``--lm NAME``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .term import Batch, Runtime, ScorerTerm, register_term


@dataclass(frozen=True)
class TargetLMTerm(ScorerTerm):
    """Bound to the scorer whose ``lm`` computes it."""

    def default_weight(self, scorer) -> float:
        return scorer.spec.lm_weight  # the formula's: its scores' spread differs

    def available(self, scorer) -> bool:
        return scorer.lm is not None

    def signature_fields(self, weight: float, precision: str = "fp32") -> dict[str, object]:
        lm = self.model.lm if weight else None
        return {"lm": "none" if lm is None else lm.ident, "coef": weight if lm else None}

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        return np.asarray(runtime.cache.lm_scores(self.model.lm, batch.outputs),
                          dtype=np.float64)


register_term(TargetLMTerm(
    "lm", "LM", "--lm-weight", (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
    "the LM's mean token log-probability of the MT output", ident="lm", own_option=True))
