"""Per-word vectors of a corpus side, their on-disk cache keyed by content hash, and aligned pairs."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment.atomic import atomic_path
from .cache import default_cache_dir  # noqa: F401  (where callers have always found it)
from .word_align import Links


@dataclass
class WordVectors:
    """All word vectors of a list of sentences, concatenated; sentence i is rows offsets[i]:offsets[i+1]."""

    vectors: np.ndarray
    offsets: np.ndarray

    @classmethod
    def from_list(cls, per_sentence: list[np.ndarray]) -> "WordVectors":
        offsets = np.zeros(len(per_sentence) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(v) for v in per_sentence])
        dim = per_sentence[0].shape[1] if per_sentence else 0
        vectors = np.concatenate(per_sentence) if per_sentence else np.zeros((0, dim), np.float32)
        return cls(vectors.astype(np.float32, copy=False), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def sentence(self, i: int) -> np.ndarray:
        return self.vectors[self.offsets[i]:self.offsets[i + 1]]

    def subset(self, indices: list[int]) -> "WordVectors":
        return WordVectors.from_list([self.sentence(i) for i in indices])

    def sentence_means(self, vectors: np.ndarray | None = None) -> np.ndarray:
        """Sentence vectors: the mean of their (finite) word vectors; ``vectors`` may replace
        the stored rows (e.g. after mapping) as long as the row layout is the same."""
        v = self.vectors if vectors is None else vectors
        finite = np.isfinite(v[:, 0])
        v = np.where(finite[:, None], v, 0.0)
        sums = np.add.reduceat(np.vstack([v, np.zeros((1, v.shape[1]), v.dtype)]),
                               self.offsets[:-1], axis=0)
        counts = np.add.reduceat(np.append(finite, False).astype(np.float64), self.offsets[:-1])
        empty = self.offsets[1:] == self.offsets[:-1]
        sums[empty] = 0.0
        counts[empty] = 0.0
        return (sums / np.maximum(counts, 1.0)[:, None]).astype(np.float32)

    def save(self, path: str | Path, made_by: dict | None = None) -> None:
        """Write atomically; ``made_by`` (what produced the vectors) is stored with them."""
        from safetensors.numpy import save_file

        meta = {"made_by": json.dumps(made_by, sort_keys=True)} if made_by is not None else None
        with atomic_path(path) as tmp:
            save_file({"vectors": self.vectors, "offsets": self.offsets}, str(tmp), metadata=meta)

    @classmethod
    def load(cls, path: str | Path) -> "WordVectors":
        from safetensors.numpy import load_file

        data = load_file(str(path))
        return cls(data["vectors"], data["offsets"])

    def well_formed(self) -> bool:
        """Every row entirely finite, or entirely NaN (a word cut off by the encoder's length
        limit); offsets that cover the rows."""
        finite = np.isfinite(self.vectors)
        rows_ok = finite.all(1) | np.isnan(self.vectors).all(1)
        return bool(rows_ok.all()) and int(self.offsets[-1]) == len(self.vectors) \
            and bool((np.diff(self.offsets) >= 0).all())


def stored_made_by(path: str | Path) -> dict | None:
    """The ``made_by`` record a cache entry was saved with (None if it has none)."""
    from safetensors import safe_open

    with safe_open(str(path), "np") as fh:
        text = (fh.metadata() or {}).get("made_by")
    return json.loads(text) if text else None


def cache_key(made_by: dict) -> str:
    """Hash of everything that determines the vectors (``made_by``: encoder identity,
    precision, device class, corpus content)."""
    payload = json.dumps(made_by, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def aligned_pairs(src: WordVectors, tgt: WordVectors, alignments: list[Links],
                  sentences: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired vectors (X, Y) of aligned words and their (sentence, i, j) origin.

    Links to words without a vector (lost to truncation) are skipped."""
    rows_x, rows_y, origin = [], [], []
    for s in (range(len(alignments)) if sentences is None else sentences):
        base_x, base_y = src.offsets[s], tgt.offsets[s]
        for i, j in alignments[s]:
            rows_x.append(base_x + i)
            rows_y.append(base_y + j)
            origin.append((s, i, j))
    x = src.vectors[np.asarray(rows_x, dtype=np.int64)]
    y = tgt.vectors[np.asarray(rows_y, dtype=np.int64)]
    ok = np.isfinite(x[:, 0]) & np.isfinite(y[:, 0])
    return x[ok], y[ok], np.asarray(origin, dtype=np.int64).reshape(-1, 3)[ok]
