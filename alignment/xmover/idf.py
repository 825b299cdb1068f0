"""Inverse document frequencies over a user-given corpus, for idf-weighted n-grams."""
from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class IdfWeights:
    """idf(t) = log((N+1)/(df(t)+1)); a token never seen gets log(N+1)."""

    n_docs: int
    df: dict[str, int]
    fingerprint: str

    def __call__(self, token: str) -> float:
        return math.log((self.n_docs + 1) / (self.df.get(token, 0) + 1))


def compute_idf(sentences: list[str], tokenize) -> IdfWeights:
    """Document frequencies of ``tokenize(sentence)`` tokens (each sentence one document)."""
    df: Counter = Counter()
    h = hashlib.sha256()
    for s in sentences:
        df.update(set(tokenize(s)))
        h.update(s.encode("utf-8") + b"\n")
    return IdfWeights(len(sentences), dict(df), h.hexdigest()[:12])
