"""The published XMoverScore versions as records: default layer, token policy, cost, solve and
score. Every version-dependent choice reads its record; nothing compares version strings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from alignment.catalogue import Registry
from .transport import score_2020, score_2022, solve_2020, solve_2022


@dataclass(frozen=True)
class Version:
    """One published formulation of XMoverScore."""

    name: str
    layer: int                 # default hidden-state index
    keep_all_tokens: bool      # False: drop punctuation and continuation pieces, keep [CLS]/[SEP]
    squared: bool              # cost: squared Euclidean (2020) or Euclidean (2022), m × k
    solve: Callable[[np.ndarray, np.ndarray, np.ndarray], float]       # (cost, masses) -> score
    score: Callable[..., float]                                       # per pair from vectors
    doc: str
    revision: int = 2          # bumped whenever this version's scores change; in the signature
    lm_weight: float = 0.1       # default weight of the LM term (its scores' spread differs)

    @property
    def tag(self) -> str:
        """``2022r2``: the version and the revision of crossalign's implementation of it
        (r1: crossalign 0.1; r2: the public 2020 token filter, the solver-independent 2022)."""
        return f"{self.name}r{self.revision}"


VERSIONS: Registry[Version] = Registry.of("version", {v.name: v for v in (
    Version("2020", -1, False, True, solve_2020, score_2020,
            "last layer; [CLS]/[SEP] kept, punctuation and continuation pieces dropped; squared "
            "Euclidean; score 1 − EMD"),
    Version("2022", 8, True, False, solve_2022, score_2022,
            "layer 8; all tokens; Euclidean; src→hyp transport, top-flow pruning counting flows "
            "above 1e-12 of the mass (solver-independent); score 1 / (1 + Σ flow·cost)",
            lm_weight=0.01),  # its scores spread ~10× less than 2020's: weight chosen on MLQE-PE dev
)})


def get_version(version: str | Version) -> Version:
    """The record for ``version`` ('2020' or '2022'); a clear error otherwise."""
    if isinstance(version, Version):
        return version
    return VERSIONS.lookup(str(version))


DEFAULT_LAYERS: dict[str, int] = {name: v.layer for name, v in VERSIONS.items()}
