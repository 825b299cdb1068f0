"""Evaluation of a mapping on held-out data: sentence retrieval, contextual BLI, lexicon induction."""
from __future__ import annotations

import numpy as np
import torch

from alignment.data.char_ngrams import char_ngram_retrieval_p1
from .csls import hits_at_1, nearest, precision_at_1
from alignment.data.lexicon import Lexicon
from alignment.mappings import Mapping
from alignment.encoding.pipeline import PreparedCorpus
from alignment.data.vectors import aligned_pairs
from alignment.data.word_align import one_to_one


def columns(src_lang: str = "src", tgt_lang: str = "tgt") -> list[tuple[str, str]]:
    """``evaluate_mapping``'s metrics and their table headings, named with the languages."""
    return [("retrieval_cosine_src2tgt", f"{src_lang}→{tgt_lang} P@1"),
            ("retrieval_cosine_tgt2src", f"{tgt_lang}→{src_lang} P@1"),
            ("cbli_p1", "CBLI P@1"), ("lexicon_p1", "lex P@1")]


def apply_mapping(mapping: Mapping | None, vectors: np.ndarray, side: str = "src",
                  chunk: int = 65536) -> np.ndarray:
    """Map rows of ``vectors`` with the source or target side of ``mapping`` (None = unchanged).
    NaN rows (words lost to truncation) stay NaN."""
    if mapping is None:
        return vectors
    out = np.empty_like(vectors)
    for s in range(0, len(vectors), chunk):
        out[s:s + chunk] = mapping.map_array(vectors[s:s + chunk], side)
    return out


def retrieval_hits(data: PreparedCorpus, mapping: Mapping | None, method: str = "cosine"
                   ) -> np.ndarray:
    """Per source sentence, whether its translation is its nearest target sentence (the
    per-item outcomes behind src→tgt retrieval P@1, for paired bootstrap intervals)."""
    src = torch.from_numpy(data.src.sentence_means(apply_mapping(mapping, data.src.vectors, "src")))
    tgt = torch.from_numpy(data.tgt.sentence_means(apply_mapping(mapping, data.tgt.vectors, "tgt")))
    return hits_at_1(src, tgt, method=method).numpy()


def paired_bootstrap(a: np.ndarray, b: np.ndarray, n: int = 1000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float, float]:
    """Mean difference of paired per-item outcomes a − b and its percentile bootstrap interval
    (items resampled with replacement, ``n`` times, seeded)."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(n, len(d)))].mean(1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(d.mean()), float(lo), float(hi)


def sentence_retrieval(data: PreparedCorpus, mapping: Mapping | None, method: str = "cosine"
                       ) -> dict[str, float]:
    """P@1 of finding each sentence's translation among all test sentences, both directions."""
    src = torch.from_numpy(data.src.sentence_means(apply_mapping(mapping, data.src.vectors, "src")))
    tgt = torch.from_numpy(data.tgt.sentence_means(apply_mapping(mapping, data.tgt.vectors, "tgt")))
    return {f"retrieval_{method}_src2tgt": precision_at_1(src, tgt, method=method),
            f"retrieval_{method}_tgt2src": precision_at_1(tgt, src, method=method)}


def contextual_bli(data: PreparedCorpus, mapping: Mapping | None, max_pairs: int = 5000,
                   seed: int = 0, method: str = "cosine", one_to_one_gold: bool = True
                   ) -> dict[str, float]:
    """P@1 of retrieving each held-out aligned source word occurrence's exact target occurrence
    among all sampled target occurrences (context decides between repeats of a word).

    ``one_to_one_gold``: only links that are one-to-one in their sentence are gold (a word in a
    1:n or n:1 group has several right answers, or shares one, which caps P@1 below 100%)."""
    hits = cbli_hits(data, mapping, max_pairs, seed, method, one_to_one_gold)
    # the mean in float32, as precision_at_1 takes it: the same digits as before the split
    return {"cbli_p1": float(torch.from_numpy(hits).float().mean()),
            "cbli_pairs": float(len(hits))}


def cbli_hits(data: PreparedCorpus, mapping: Mapping | None, max_pairs: int = 5000,
              seed: int = 0, method: str = "cosine", one_to_one_gold: bool = True) -> np.ndarray:
    """Per sampled gold occurrence, whether CBLI retrieves it (``contextual_bli``'s outcomes,
    for paired bootstrap intervals)."""
    links = [one_to_one(l) for l in data.alignments] if one_to_one_gold else data.alignments
    x, y, _ = aligned_pairs(data.src, data.tgt, links)
    if len(x) > max_pairs:
        keep = np.sort(np.random.default_rng(seed).choice(len(x), max_pairs, replace=False))
        x, y = x[keep], y[keep]
    mx = torch.from_numpy(apply_mapping(mapping, x, "src"))
    my = torch.from_numpy(apply_mapping(mapping, y, "tgt"))
    return hits_at_1(mx, my, method=method).numpy()


def type_vectors(data: PreparedCorpus, mapped: np.ndarray, side: str) -> tuple[list[str], np.ndarray]:
    """Static vectors per lowercased word type: the mean of its occurrences' (mapped) vectors."""
    tokens = data.src_tokens if side == "src" else data.tgt_tokens
    index: dict[str, int] = {}
    rows = []
    for sent in tokens:
        for w in sent:
            rows.append(index.setdefault(w.lower(), len(index)))
    rows_arr = np.asarray(rows)
    finite = np.isfinite(mapped[:, 0])
    sums = np.zeros((len(index), mapped.shape[1]))
    np.add.at(sums, rows_arr[finite], mapped[finite])
    counts = np.bincount(rows_arr[finite], minlength=len(index))
    ok = counts > 0
    words = [w for w, k in index.items() if ok[k]]
    return words, (sums[ok] / counts[ok, None]).astype(np.float32)


def lexicon_induction(data: PreparedCorpus, mapping: Mapping | None, lexicon: Lexicon,
                      method: str = "csls", only_types: set[str] | None = None,
                      key: str = "lexicon") -> dict[str, float]:
    """P@1 of word-type translation against a bilingual lexicon, over source words of the test
    data that the lexicon covers and whose translation occurs in the test data (``only_types``:
    only these source types). Vectors are the types' mean over their *test* contexts; the
    types may also occur in the training pairs (held-out contexts, not held-out words)."""
    src_words, src_vecs = type_vectors(data, apply_mapping(mapping, data.src.vectors, "src"), "src")
    tgt_words, tgt_vecs = type_vectors(data, apply_mapping(mapping, data.tgt.vectors, "tgt"), "tgt")
    tgt_index = {w: k for k, w in enumerate(tgt_words)}
    queries = [k for k, w in enumerate(src_words)
               if w in lexicon and any(t in tgt_index for t in lexicon[w])
               and (only_types is None or w in only_types)]
    if not queries:
        return {f"{key}_p1": float("nan"), f"{key}_pairs": 0.0}
    idx, _ = nearest(torch.from_numpy(src_vecs[queries]), torch.from_numpy(tgt_vecs), method)
    hits = [tgt_words[int(idx[n, 0])] in lexicon[src_words[k]] for n, k in enumerate(queries)]
    return {f"{key}_p1": float(np.mean(hits)), f"{key}_pairs": float(len(queries))}


def evaluate_mapping(data: PreparedCorpus, mapping: Mapping | None, lexicon: Lexicon | None = None,
                     csls: bool = False, max_bli_pairs: int = 5000,
                     unseen_types: set[str] | None = None) -> dict[str, float]:
    """All evaluations of one mapping on prepared held-out data, as flat metric keys
    (``unseen_types``: source types absent from training, for a held-out-words lexicon P@1)."""
    result = sentence_retrieval(data, mapping, "cosine")
    if csls:
        result.update(sentence_retrieval(data, mapping, "csls"))
    result.update(contextual_bli(data, mapping, max_bli_pairs))
    if lexicon:
        result.update(lexicon_induction(data, mapping, lexicon))
        if unseen_types is not None:
            result.update(lexicon_induction(data, mapping, lexicon, only_types=unseen_types,
                                            key="lexicon_unseen"))
    return result


def char_ngram_reference(data: PreparedCorpus) -> dict[str, float]:
    """The lexical shortcut, no model: character 3–4-gram TF-IDF retrieval, both directions."""
    return {"retrieval_cosine_src2tgt": char_ngram_retrieval_p1(data.corpus.src, data.corpus.tgt),
            "retrieval_cosine_tgt2src": char_ngram_retrieval_p1(data.corpus.tgt, data.corpus.src)}
