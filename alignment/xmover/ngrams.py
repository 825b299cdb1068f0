"""Which subword tokens each XMoverScore version keeps, their n-gram vectors and masses, and a
map applied to their rows in a few large calls."""
from __future__ import annotations

import string
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .versions import Version


ASCII_PUNCTUATION = frozenset(string.punctuation)


def is_punctuation(token: str) -> bool:
    """A token that is one ASCII punctuation character (``string.punctuation``), as the public
    2020 code filters: curly quotes, ¿, ¡, « » and other Unicode punctuation are kept, as there.
    SentencePiece's word marker ▁ is ignored (the public code was written for WordPiece)."""
    return token.lstrip("▁") in ASCII_PUNCTUATION


def is_continuation(token: str, sentencepiece: bool) -> bool:
    """A piece that continues a word: one containing ``##`` in WordPiece (the public test),
    one without a leading ▁ in SentencePiece."""
    return (not token.startswith("▁")) if sentencepiece else "##" in token


def select_tokens(tokens: list[str], special: list[bool], version: str | Version,
                  sentencepiece: bool = False) -> np.ndarray:
    """Indices of the tokens a version keeps.

    2020: special tokens ([CLS]/[SEP]) kept; single punctuation characters and continuation
    pieces dropped (a word is its first subword). 2022: every token kept. In SentencePiece a
    bare ``▁`` piece is a word's marker alone (``▁`` + ``wandten``): the piece after it starts
    the word, and the marker is dropped."""
    from .versions import get_version

    if get_version(version).keep_all_tokens:
        return np.arange(len(tokens))
    keep = []
    for i, (t, s) in enumerate(zip(tokens, special)):
        if s:
            keep.append(i)
        elif sentencepiece and t == "▁":
            continue
        elif not is_punctuation(t) and (not is_continuation(t, sentencepiece)
                                        or (sentencepiece and i > 0 and tokens[i - 1] == "▁")):
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)


def ngram_vectors(vectors: np.ndarray, weights: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sliding windows of n consecutive tokens (stride 1): each n-gram's vector is the
    weight-weighted mean of its tokens, its mass the sum of their weights. A sequence shorter
    than n gives one n-gram of all its tokens."""
    if n < 1:
        raise ValueError("n must be >= 1")
    t = len(vectors)
    if t == 0:
        raise ValueError("no tokens to build n-grams from")
    n = min(n, t)
    weights = weights.astype(np.float64)
    vecs = vectors.astype(np.float64)
    windows = np.lib.stride_tricks.sliding_window_view(np.arange(t), n)
    w = weights[windows]                              # (G, n)
    mass = w.sum(1)
    summed = np.einsum("gn,gnd->gd", w, vecs[windows])
    return summed / np.maximum(mass, 1e-12)[:, None], mass


MAP_CHUNK = 16384  # token vectors mapped per call: one call per chunk, bounded memory


def map_rows(parts: list[np.ndarray], transform, progress: bool = False) -> list[np.ndarray]:
    """``transform`` applied to every part's rows in a few large calls rather than one call per
    sentence (each call of a flow pays a fixed overhead); float64 in, parts split back."""
    from tqdm.auto import tqdm

    sizes = [len(p) for p in parts]
    if not parts or sum(sizes) == 0:
        return [p.astype(np.float64) for p in parts]
    rows = np.concatenate(parts).astype(np.float64)
    chunks = range(0, len(rows), MAP_CHUNK)
    mapped = np.concatenate([transform(rows[a:a + MAP_CHUNK])
                             for a in tqdm(chunks, desc="mapping", unit="chunk", leave=False,
                                           disable=not progress or len(chunks) < 4)])
    return np.split(mapped, np.cumsum(sizes)[:-1])
