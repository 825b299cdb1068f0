"""The word term ``transport``: the mean cost of the moves that bring a word's mass in the
token-level optimal transport between source and output — a word the source does not say must
draw its mass from far away (both sides)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .term import Runtime
from .word_term import WordBatch, WordTerm, register_word_term, word_flow


@dataclass(frozen=True)
class TransportWords(WordTerm):
    def values(self, batch: WordBatch, runtime: Runtime) -> list[dict[str, np.ndarray]]:
        out = []
        for k in range(len(batch.outputs)):
            src, hyp = word_flow(batch, k, runtime)[self.name]
            out.append({"src": src, "hyp": hyp})
        return out


register_word_term(TransportWords(
    "transport", (0.0, 0.5, 1.0), 0.0,
    "the mean cost of the transport moves that bring a word's mass (a distance)"))
