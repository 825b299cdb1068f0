"""The word term ``surprisal``: −log p(word | prefix) under the scorer's LM, the sum over the
word's LM tokens (the output side only; needs ``--lm``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .term import Runtime
from .word_term import WordBatch, WordTerm, register_word_term


@dataclass(frozen=True)
class SurprisalWords(WordTerm):
    def values(self, batch: WordBatch, runtime: Runtime) -> list[dict[str, np.ndarray]]:
        return [{"hyp": s} for s in batch.scorer.lm.word_surprisals(list(batch.outputs))]


register_word_term(SurprisalWords(
    "surprisal", (0.0, 0.01, 0.02, 0.03, 0.05), 0.02,
    "the LM's surprisal of a word given the words before it (nats)", needs_lm=True))
