"""The test bed's verses as a fine-tuned encoder sees them: re-encoded (TEXT-normalised
where asked), with NORM heads, the English side's drift, and the training pairs a map can be
stacked on."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alignment.data.corpus import ParallelCorpus
from alignment.encoding.encoder import Encoder
from alignment.encoding.norm_head import batch_normalise, language_statistics, layer_normalise, running_norm
from alignment.encoding.pipeline import PreparedCorpus, tokenize_corpus, word_alignment
from alignment.encoding.text_normalise import SpanishTextNormaliser
from alignment.data.vectors import WordVectors


def text_test_corpus(bed, normaliser: SpanishTextNormaliser, tokenizer) -> PreparedCorpus:
    """The held-out verses with TEXT-normalised Spanish, re-tokenised and re-aligned (with the
    normalised training verses, as the test bed aligns); vectors are filled in later."""
    train = ParallelCorpus(normaliser(bed.train.src), bed.train.tgt, "bible-train-text")
    test = ParallelCorpus(normaliser(bed.test.corpus.src), bed.test.corpus.tgt, "bible-test-text")
    both = ParallelCorpus(train.src + test.src, train.tgt + test.tgt, "bible-text")
    src_tok, tgt_tok = tokenize_corpus(both, tokenizer)
    links = word_alignment(src_tok, tgt_tok)
    n = len(train)
    empty = WordVectors.from_list([])
    return PreparedCorpus(test, src_tok[n:], tgt_tok[n:], links[n:], empty, empty)


def encoded(data: PreparedCorpus, encoder: Encoder) -> PreparedCorpus:
    """``data`` with both sides encoded afresh by ``encoder`` (no cache: the weights changed)."""
    src = WordVectors.from_list(encoder.encode_words(data.src_tokens, progress=False))
    tgt = WordVectors.from_list(encoder.encode_words(data.tgt_tokens, progress=False))
    return PreparedCorpus(data.corpus, data.src_tokens, data.tgt_tokens, data.alignments, src, tgt)


def with_vectors(data: PreparedCorpus, src: np.ndarray, tgt: np.ndarray) -> PreparedCorpus:
    return PreparedCorpus(data.corpus, data.src_tokens, data.tgt_tokens, data.alignments,
                          WordVectors(src, data.src.offsets), WordVectors(tgt, data.tgt.offsets))


def norm_variants(data: PreparedCorpus, train_data: PreparedCorpus, seed: int = 0
                  ) -> dict[str, PreparedCorpus]:
    """The NORMs of ``alignment.encoding.norm_head`` applied to ``data`` (running statistics from
    ``train_data``, encoded by the same encoder). Batch NORM twice: batches of 8 test verses in
    corpus order on both sides (each Spanish batch's translations form the English batch —
    information a scorer never has) and in independent random orders per language (fair)."""
    head = running_norm(language_statistics(train_data.src.vectors),
                        language_statistics(train_data.tgt.vectors))
    n = len(data.src)
    rng = np.random.default_rng(seed)
    src_order, tgt_order = rng.permutation(n), rng.permutation(n)
    return {
        "NORM": with_vectors(data, head.map_array(data.src.vectors, "src"),
                             head.map_array(data.tgt.vectors, "tgt")),
        "NORM (batch 8, parallel)": with_vectors(
            data, batch_normalise(data.src.vectors, data.src.offsets),
            batch_normalise(data.tgt.vectors, data.tgt.offsets)),
        "NORM (batch 8)": with_vectors(
            data, batch_normalise(data.src.vectors, data.src.offsets, order=src_order),
            batch_normalise(data.tgt.vectors, data.tgt.offsets, order=tgt_order)),
        "layer norm": with_vectors(data, layer_normalise(data.src.vectors),
                                   layer_normalise(data.tgt.vectors)),
    }


def english_cosine(now: PreparedCorpus, before: PreparedCorpus) -> float:
    """Mean cosine between the English word vectors of the held-out verses now and under the
    original model (1: no drift)."""
    a, b = now.tgt.vectors.astype(np.float64), before.tgt.vectors.astype(np.float64)
    ok = np.isfinite(a).all(1) & np.isfinite(b).all(1)
    a, b = a[ok], b[ok]
    return float(((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))).mean())


@dataclass(frozen=True)
class TunedPairs:
    """The training pairs and dev verses as the fine-tuned encoder encodes them: what
    ``fit_supervised`` fits a reference on."""

    x: np.ndarray
    y: np.ndarray
    dev: PreparedCorpus


def text_train_corpus(data: PreparedCorpus, normaliser, tokenizer) -> PreparedCorpus:
    corpus = ParallelCorpus(normaliser(data.corpus.src), data.corpus.tgt, "norm-train-text")
    src_tok, tgt_tok = tokenize_corpus(corpus, tokenizer)
    empty = WordVectors.from_list([])
    return PreparedCorpus(corpus, src_tok, tgt_tok, [[] for _ in src_tok], empty, empty)
