"""XMoverScore: the transport of the mapped token vectors of a source onto its output's
(Zhao et al. 2019/2020). It reads what the scorer loaded — the encoder, the map, the idf
weights, the formula — so it is bound to the scorer; the sources' side is computed once for
every system of a call."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .term import Batch, Runtime, ScorerTerm, register_term


@dataclass(frozen=True)
class XMoverScoreTerm(ScorerTerm):
    """The transport term; weight 1 unless a setting says otherwise."""

    def signature_fields(self, weight: float, precision: str = "fp32") -> dict[str, object]:
        return {"xmover": None if weight == 1 else f"{weight:g}"}  # 0: left out

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        scorer = self.model
        src = runtime.once(("xmover", "sources"), lambda: scorer.token_side(
            scorer.normalised(batch.sources, runtime), "sources", runtime))
        hyp = scorer.token_side(batch.outputs, "hypotheses", runtime)
        return self.transport(src, hyp, runtime)

    def transport(self, src: list[tuple[np.ndarray, np.ndarray]],
                  hyp: list[tuple[np.ndarray, np.ndarray]], runtime: Runtime) -> np.ndarray:
        """The score of each pair of sides (n-gram vectors, weights): the costs, then the
        transport problems, as the scorer's formula defines them."""
        from alignment.xmover.costs import batched_costs
        from alignment.xmover.stages import Laps
        from alignment.xmover.transport import solve_all

        spec, laps = self.model.spec, Laps(runtime.seconds)
        costs = batched_costs(spec, [v for v, _ in src], [v for v, _ in hyp],
                              self.model.encoder.device)
        laps.lap("cost")
        out = solve_all([(spec.solve, c, s[1], h[1]) for c, s, h in zip(costs, src, hyp)],
                        runtime.jobs, runtime.progress)
        laps.lap("transport")
        return out


register_term(XMoverScoreTerm(
    "xmover", "XMoverScore", "--xmover-weight", (1.0,),
    "XMoverScore: the transport of mapped token vectors", default=1.0, ident="xmover",
    own_option=True))
