"""NORM as an encoder head (Zhao et al. 2021), three ways of taking the statistics.

``running`` (the default, and what an export carries): each language's mean and variance per
dimension, fixed from training text — usable on one sentence at scoring time. ``batch`` (the
paper): zero mean / unit variance over the word vectors of each batch of ``batch`` sentences of
one language — the statistics change with what else is in the batch, so a scorer cannot
reproduce it on a single sentence. ``layer``: layer normalisation of each vector (no affine),
which the paper found does not help."""
from __future__ import annotations

import numpy as np

NORM_MODES = ("running", "batch", "layer")
EPS = 1e-8


def layer_normalise(vectors: np.ndarray) -> np.ndarray:
    """Each row to zero mean and unit variance over its own dimensions."""
    mean = vectors.mean(1, keepdims=True)
    return (vectors - mean) / np.sqrt(vectors.var(1, keepdims=True) + EPS)


def batch_normalise(vectors: np.ndarray, offsets: np.ndarray, batch: int = 8,
                    order: np.ndarray | None = None) -> np.ndarray:
    """Word vectors standardised per dimension within batches of ``batch`` sentences
    (``offsets``: sentence i is rows offsets[i]:offsets[i+1]); NaN rows stay NaN. Batches are
    consecutive sentences, or consecutive in ``order`` (a permutation of the sentences).

    On a parallel test set, batching both languages in the same order puts the translations of
    one batch's sentences in the other language's batch — statistics no scorer has; give each
    language its own ``order`` to measure NORM (batch) without that."""
    out = np.empty_like(vectors)
    n = len(offsets) - 1
    order = np.arange(n) if order is None else np.asarray(order)
    for s in range(0, n, batch):
        rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in order[s:s + batch]])
        block = vectors[rows]
        finite = np.isfinite(block[:, 0])
        mean = block[finite].mean(0) if finite.any() else 0.0
        std = np.sqrt(block[finite].var(0) + EPS) if finite.any() else 1.0
        out[rows] = (block - mean) / std
    return out


def language_statistics(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One language's running statistics: mean and standard deviation per dimension over its
    (finite) word vectors."""
    finite = vectors[np.isfinite(vectors).all(1)].astype(np.float64)
    if not len(finite):
        raise ValueError("no finite vectors to take NORM statistics from")
    return finite.mean(0), np.sqrt(finite.var(0) + EPS)


def running_norm(src: tuple[np.ndarray, np.ndarray], tgt: tuple[np.ndarray, np.ndarray]):
    """The ``norm`` mapping (source side, target side) from two languages' statistics."""
    import torch

    from alignment.mappings.centering import Norm

    (mx, sx), (my, sy) = [(torch.from_numpy(np.asarray(m, np.float64)),
                           torch.from_numpy(np.asarray(s, np.float64))) for m, s in (src, tgt)]
    head = Norm(len(mx))
    head.set_affine(torch.diag(1 / sx), -mx / sx, torch.diag(1 / sy), -my / sy)
    return head
