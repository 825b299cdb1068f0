"""What a word-level term is, and their one registry (``WORD_TERMS``): a term that gives each
whitespace word of an output — and of its source, where it reads one — a value, higher where
the word is more likely an error, read from what the sentence score computed (the mapped token
vectors, the LM). The same contract as a sentence term's: a name, a grid of weights, a default
weight, one line of what it measures, and ``values(batch, runtime)``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from alignment.catalogue import Registry
from alignment.errors import InputError

from .term import Runtime


@dataclass(frozen=True)
class WordBatch:
    """What a word term reads: the sources as the encoder read them, the outputs, per pair each
    side's content-token vectors (mapped as the score maps them) and the word each token
    belongs to, how a word's subword values become one (``pool``: max or sum), and the scorer
    that loaded the encoder and the LM."""

    sources: list[str]
    outputs: list[str]
    src: list[tuple[np.ndarray, np.ndarray]]
    hyp: list[tuple[np.ndarray, np.ndarray]]
    pool: str
    scorer: Any

    def word_counts(self, k: int) -> tuple[int, int]:
        """The whitespace words of pair ``k``'s source and output."""
        return len(self.sources[k].split()), len(self.outputs[k].split())


@dataclass(frozen=True)
class WordTerm:
    """One word-level term. ``needs_lm``: it reads the scorer's LM (computed only where the
    scorer has one and the term weighs). A term class overrides ``values``."""

    name: str
    grid: tuple[float, ...]  # the weights the dev-set grid searches
    default: float  # its weight where none is given
    about: str  # one line: what the term measures
    needs_lm: bool = False

    def computable(self, scorer: Any, weight: float) -> bool:
        """Whether a word pass with ``scorer`` at ``weight`` computes this term."""
        return not self.needs_lm or (scorer.lm is not None and bool(weight))

    def values(self, batch: WordBatch, runtime: Runtime) -> list[dict[str, np.ndarray]]:
        """Per pair, one value a word of each side it scores (``hyp``, ``src``)."""
        raise NotImplementedError(f"the word term {self.name} defines no values")


WORD_TERMS: Registry[WordTerm] = Registry("word term")


def register_word_term(term: WordTerm) -> WordTerm:
    """Make ``term`` a word term of ``--words`` (its weight in ``--word-weights``, its values
    in the dev-set grid). Registering the same term again is a no-op."""
    if term.name in WORD_TERMS:
        if WORD_TERMS[term.name] != term:
            raise InputError(f"a word term '{term.name}' is already registered",
                             parameter="word-weights")
        return WORD_TERMS[term.name]
    return WORD_TERMS.add(term.name, term)


def word_flow(batch: WordBatch, k: int, runtime: Runtime) -> dict[str, tuple]:
    """Pair ``k``'s token-level transport parts (``alignment.xmover.words.transport_terms``),
    pooled into words; computed once a pair for the terms that read them. An empty side: every
    word of the other unmatched (1)."""
    from alignment.xmover.words import pool_words, transport_terms

    def compute() -> dict[str, tuple]:
        (sv, so), (hv, ho) = batch.src[k], batch.hyp[k]
        n_src, n_hyp = batch.word_counts(k)
        if not (len(sv) and len(hv)):
            return {n: (np.ones(n_src), np.ones(n_hyp)) for n in ("transport", "nearest")}
        return {n: (pool_words(a, so, n_src, batch.pool), pool_words(b, ho, n_hyp, batch.pool))
                for n, (a, b) in transport_terms(sv, hv).items()}

    return runtime.once(("word-flow", k), compute)
