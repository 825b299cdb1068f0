"""XMoverScore: the transport of the mapped token vectors of a source onto its output's
(Zhao et al. 2019/2020). It reads what the scorer loaded — the encoder, the map, the idf
weights, the formula — so it is bound to the scorer; the sources' side is computed once for
every system of a call."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .registry import register_term
from .term import Batch, Runtime, Term


@dataclass(frozen=True)
class XMoverScoreTerm(Term):
    """The transport term; weight 1 unless a setting says otherwise."""

    def bind(self, scorer) -> "XMoverScoreTerm":
        return self.bound(scorer)

    def flag_words(self, weight: float) -> str | None:
        return None if weight == self.default else f"{self.flag} {weight:g}"

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        scorer = self.model
        src = runtime.once(("xmover", "sources"), lambda: scorer.token_side(
            scorer.normalised(batch.sources, runtime), "sources", runtime))
        hyp = scorer.token_side(batch.outputs, "hypotheses", runtime)
        return scorer.transport(src, hyp, runtime)


register_term(XMoverScoreTerm(
    "xmover", "XMoverScore", "--xmover-coef", (1.0,),
    "XMoverScore: the transport of mapped token vectors", default=1.0, ident="xmover",
    own_option=True))
