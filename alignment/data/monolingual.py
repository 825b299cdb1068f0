"""Monolingual pools: one language's token vectors with the word type of each token, for
methods that see no translation pairs (adversarial maps, self-learning, self-training)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .vectors import WordVectors


@dataclass
class MonolingualPool:
    """Token vectors (rows), the type id of each row and the (lower-cased) type of each id.
    Rows whose vector is NaN (words lost to truncation) are left out."""

    vectors: np.ndarray
    type_ids: np.ndarray
    words: list[str]
    lang: str = ""

    @classmethod
    def from_side(cls, vectors: WordVectors, tokens: list[list[str]], lang: str = "",
                  indices: list[int] | None = None) -> "MonolingualPool":
        """The pool of the sentences at ``indices`` (default all) of one corpus side."""
        indices = list(range(len(vectors))) if indices is None else indices
        index: dict[str, int] = {}
        rows, ids = [], []
        for i in indices:
            block = vectors.sentence(i)
            for w, v in zip(tokens[i], block):
                if np.isfinite(v[0]):
                    rows.append(v)
                    ids.append(index.setdefault(w.lower(), len(index)))
        dim = vectors.dim
        stacked = np.stack(rows).astype(np.float32) if rows else np.zeros((0, dim), np.float32)
        return cls(stacked, np.asarray(ids, dtype=np.int64), list(index), lang)

    def __len__(self) -> int:
        return len(self.vectors)

    def counts(self) -> np.ndarray:
        return np.bincount(self.type_ids, minlength=len(self.words))

    def capped_sample(self, n: int, per_type: int = 20, seed: int = 0) -> np.ndarray:
        """Row indices of a seeded sample of at most ``n`` tokens in which no type has more than
        ``per_type`` occurrences: contextual pools are dominated by function words (de, la,
        que ... are a third of the Spanish Bible's tokens), which would otherwise dominate
        every adversarial batch and every induced lexicon; rare types keep all their tokens."""
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(self))
        seen = np.zeros(len(self.words), dtype=np.int64)
        keep = []
        for row in order:
            t = self.type_ids[row]
            if seen[t] < per_type:
                seen[t] += 1
                keep.append(row)
                if len(keep) == n:
                    break
        return np.sort(np.asarray(keep, dtype=np.int64))

    def centroids(self, top: int | None = None, min_count: int = 1,
                  vectors: np.ndarray | None = None) -> tuple[list[str], np.ndarray]:
        """Per-type mean vectors of the ``top`` most frequent types with at least ``min_count``
        tokens (static "word" vectors for type-level methods); ``vectors`` may replace the rows
        (e.g. mapped), same layout."""
        v = self.vectors if vectors is None else vectors
        counts = self.counts()
        sums = np.zeros((len(self.words), v.shape[1]), dtype=np.float64)
        np.add.at(sums, self.type_ids, v)
        order = np.argsort(-counts, kind="stable")
        order = order[counts[order] >= min_count]
        if top is not None:
            order = order[:top]
        return [self.words[k] for k in order], (sums[order] / counts[order, None]).astype(np.float32)
