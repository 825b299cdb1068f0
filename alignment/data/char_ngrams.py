"""The model-free lexical shortcut: character n-gram TF-IDF vectors for retrieval baselines."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
from scipy import sparse


def char_ngrams(text: str, sizes: tuple[int, ...] = (3, 4)) -> Counter:
    padded = f" {' '.join(text.lower().split())} "
    return Counter(padded[i:i + n] for n in sizes for i in range(len(padded) - n + 1))


def tfidf_matrix(texts_a: list[str], texts_b: list[str], sizes: tuple[int, ...] = (3, 4)
                 ) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
    """L2-normalised TF-IDF rows for two text lists over one shared n-gram vocabulary
    (sublinear tf, idf = log((N+1)/(df+1)) + 1 over both lists)."""
    counts = [char_ngrams(t, sizes) for t in texts_a + texts_b]
    vocab: dict[str, int] = {}
    df: Counter = Counter()
    for c in counts:
        df.update(c.keys())
        for g in c:
            vocab.setdefault(g, len(vocab))
    n = len(counts)
    idf = np.zeros(len(vocab))
    for g, j in vocab.items():
        idf[j] = math.log((n + 1) / (df[g] + 1)) + 1
    rows, cols, vals = [], [], []
    for r, c in enumerate(counts):
        for g, tf in c.items():
            j = vocab[g]
            rows.append(r)
            cols.append(j)
            vals.append((1 + math.log(tf)) * idf[j])
    m = sparse.csr_matrix((vals, (rows, cols)), shape=(n, len(vocab)))
    norms = np.sqrt(np.asarray(m.multiply(m).sum(1)).ravel())
    m = sparse.diags(1 / np.maximum(norms, 1e-12)) @ m
    return m[:len(texts_a)].tocsr(), m[len(texts_a):].tocsr()


def char_ngram_retrieval_p1(src: list[str], tgt: list[str], sizes: tuple[int, ...] = (3, 4)) -> float:
    """P@1 of retrieving tgt[i] for src[i] by cosine of character n-gram TF-IDF vectors."""
    a, b = tfidf_matrix(src, tgt, sizes)
    sims = (a @ b.T).toarray()
    return float((sims.argmax(1) == np.arange(len(src))).mean())
