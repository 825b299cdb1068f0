"""Which words are wrong: word-level scores of a translation (and of its source) read from what
XMoverScore already computes — the transport plan between the (mapped) source and hypothesis
token vectors, each token's distance to its nearest counterpart, and the LM's surprisal — on
the user's own whitespace tokens. No word label is used: the terms' weights are the only
setting, chosen on dev data (``evaluate eval4nlp``).

Higher is worse everywhere: a word's score says how likely it is to be an error."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from alignment.catalogue import check_choice
from alignment.errors import InputError

def word_terms() -> dict:
    """The registered word-level terms (``alignment.terms.WORD_TERMS``), by name, in order."""
    from alignment.terms import WORD_TERMS

    return dict(WORD_TERMS.items())


def default_weights() -> dict[str, float]:
    """Each word term's default weight, chosen on Eval4NLP 2021 dev (et-en, ro-en: the best mean
    of AUC and AP over the terms' grids; ``docs/word_scores.md``): transport 0, nearest 1,
    surprisal 0.02. Terms are added in their own units (a distance between unit vectors, nats),
    so a word's score means the same in every sentence and one threshold marks errors; a term
    the scorer cannot compute (no LM) drops out."""
    return {n: t.default for n, t in word_terms().items()}


MARK_THRESHOLD = {True: 1.10, False: 0.89}
"""The score above which the text view marks a word, with the LM's surprisal (True) and
without: the BAD threshold with the best MCC on Eval4NLP dev, both pairs pooled, for the
default weights (``evaluate eval4nlp --split dev`` prints it)."""


@dataclass
class WordScores:
    """One translation's word scores: ``words`` are the hypothesis's whitespace tokens and
    ``scores`` one value each (higher: more likely an error); ``src_words``/``src_scores`` the
    same for the source; ``terms`` and ``src_terms`` each term's own per-word values."""

    words: list[str]
    scores: np.ndarray
    src_words: list[str]
    src_scores: np.ndarray
    terms: dict[str, np.ndarray] = field(default_factory=dict)
    src_terms: dict[str, np.ndarray] = field(default_factory=dict)

    def worst(self, k: int = 3) -> list[int]:
        """Indices of the ``k`` highest-scoring hypothesis words, worst first."""
        return [int(i) for i in np.argsort(-self.scores, kind="stable")[:k]]


def check_weights(weights: dict[str, float]) -> dict[str, float]:
    """``weights`` with every name a known term and every value finite and >= 0."""
    for name, value in weights.items():
        check_choice(name, tuple(word_terms()), "word term", parameter="word-weights")
        if not (np.isfinite(value) and value >= 0):
            raise InputError(f"weight of '{name}' must be finite and >= 0, got {value}",
                             parameter="word-weights")
    if not any(weights.values()):
        raise InputError("every word term has weight 0", parameter="word-weights")
    return dict(weights)


def parse_weights(spec: str) -> dict[str, float]:
    """``transport=1,surprisal=0.5`` as a weights dict (terms not named get 0)."""
    weights = {t: 0.0 for t in word_terms()}
    named: set[str] = set()
    for part in spec.split(","):
        name, sep, value = part.partition("=")
        if name.strip() in named:
            raise InputError(f"word term '{name.strip()}' is given twice", parameter="word-weights")
        named.add(name.strip())
        try:
            weights[name.strip()] = float(value) if sep else float("nan")
        except ValueError:
            raise InputError(f"'{part}' is not TERM=WEIGHT", parameter="word-weights") from None
        if not sep:
            raise InputError(f"'{part}' is not TERM=WEIGHT", parameter="word-weights")
    return check_weights(weights)


def check_word_request(words: bool, weights: str | None, threshold: float | None = None,
                       lm: str | None = None) -> dict[str, float] | None:
    """The word options of ``score`` and ``evaluate`` checked together before anything loads:
    weights or a threshold without word scores, a non-finite threshold, and a weight on the
    LM's surprisal with no LM (every word would score 0) are refused. Returns the weights."""
    if weights and not words:
        raise InputError("--word-weights needs --words (no word scores are computed)",
                         parameter="word-weights")
    if threshold is not None and not words:
        raise InputError("--word-threshold needs --words", parameter="word-threshold")
    if threshold is not None and not np.isfinite(threshold):
        raise InputError(f"must be a finite number, got {threshold}", parameter="word-threshold")
    parsed = parse_weights(weights) if weights else None
    for name, term in word_terms().items():
        if parsed and parsed[name] and term.needs_lm and not lm:
            raise InputError(f"{name} is the LM's: give --lm MODEL, or leave {name} out",
                             parameter="word-weights")
    return parsed


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the whitespace tokens of ``text``: the user's own words."""
    spans, start = [], None
    for k, ch in enumerate(text):
        if ch.isspace():
            if start is not None:
                spans.append((start, k))
                start = None
        elif start is None:
            start = k
    if start is not None:
        spans.append((start, len(text)))
    return spans


def token_words(text: str, offsets: list[tuple[int, int]]) -> np.ndarray:
    """For each token (by its character ``offsets`` in ``text``), the index of the whitespace
    word it belongs to; -1 for tokens with no characters (special tokens, bare markers)."""
    spans = word_spans(text)
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    out = np.full(len(offsets), -1, dtype=np.int64)
    for t, (s, e) in enumerate(offsets):
        while s < e and text[s].isspace():
            s += 1
        if s >= e or not len(starts):
            continue
        w = int(np.searchsorted(starts, s, side="right")) - 1
        if w >= 0 and s < spans[w][1]:
            out[t] = w
    return out


def pool_words(values: np.ndarray, owner: np.ndarray, n_words: int, how: str = "max"
               ) -> np.ndarray:
    """Token values pooled into ``n_words`` word values (``max`` or ``sum`` of a word's tokens);
    a word no token reached (cut by the encoder's length limit) gets the sentence's mean."""
    out = np.full(n_words, np.nan)
    for w in range(n_words):
        mine = values[owner == w]
        if len(mine):
            out[w] = mine.max() if how == "max" else mine.sum()
    if np.isnan(out).all():
        return np.zeros(n_words)
    return np.where(np.isnan(out), np.nanmean(out), out)


def combine(terms: dict[str, np.ndarray], weights: dict[str, float]) -> np.ndarray:
    """The weighted sum of the terms present in ``terms``, each in its own units."""
    n = len(next(iter(terms.values()))) if terms else 0
    total = np.zeros(n)
    for name, w in weights.items():
        if w and name in terms:
            total += w * terms[name]
    return total


def transport_terms(src: np.ndarray, hyp: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per token of each side (rows of ``src`` m × d, ``hyp`` k × d): the mean cost of its moves
    in the exact optimal transport of uniform masses under Euclidean distance between unit
    vectors (``transport``), and its distance to the nearest token of the other side
    (``nearest``). Returns {term: (source values, hypothesis values)}."""
    from .transport import cost_2022, emd_flow

    cost = cost_2022(src, hyp)
    m, k = cost.shape
    flow = emd_flow(np.full(m, 1.0 / m), np.full(k, 1.0 / k), cost)
    moved = flow * cost
    return {"transport": (moved.sum(1) * m, moved.sum(0) * k),
            "nearest": (cost.min(1), cost.min(0))}


class WordScorer:
    """Word scores for pairs scored by ``scorer`` (an ``XMoverScorer``): the same encoder, layer
    and map, so the tokens and vectors are those the sentence score used. ``weights``: each
    term's weight (default ``default_weights()``); ``pool``: how a word's subword values become
    one (``max``, or ``sum`` — the surprisal is always summed: −log p of the whole word)."""

    def __init__(self, scorer, weights: dict[str, float] | None = None, pool: str = "max") -> None:
        if pool not in ("max", "sum"):
            raise InputError(f"must be max or sum, got '{pool}'", parameter="word-pool")
        self.scorer = scorer
        self.weights = check_weights(dict(weights) if weights is not None else default_weights())
        self.pool = pool
        if not getattr(scorer.encoder.tokenizer, "is_fast", False):
            raise InputError("word scores need a fast tokenizer (character offsets)",
                             parameter="encoder")
        self.seconds: dict[str, float] = {}

    @property
    def uses_lm(self) -> bool:
        """Whether a term of the LM is in the score (an LM and a weight for it)."""
        return any(t.needs_lm and t.computable(self.scorer, self.weights.get(n, 0.0))
                   for n, t in word_terms().items())

    @property
    def mark_threshold(self) -> float:
        """The score above which a word is marked as an error (``MARK_THRESHOLD``)."""
        return MARK_THRESHOLD[self.uses_lm]

    @property
    def signature(self) -> str:
        """The sentence scorer's signature with the word setting: terms, weights, pooling."""
        terms = word_terms()
        used = ",".join(f"{t}={w:g}" for t, w in self.weights.items()
                        if w and terms[t].computable(self.scorer, w))
        return f"{self.scorer.signature}|words:{used or 'none'}@{self.pool}"

    def _offsets(self, sentences: list[str]) -> list[list[tuple[int, int]]]:
        enc = self.scorer.encoder
        return enc.tokenizer(sentences, truncation=True, max_length=enc.max_length,
                             return_offsets_mapping=True)["offset_mapping"]

    def _vectors(self, sentences: list[str], transform, progress: bool, desc: str
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per sentence: the content tokens' vectors (mapped) and the word each belongs to."""
        from .ngrams import map_rows

        encoded = self.scorer.encoded(sentences, self.scorer.call_runtime(progress), desc,
                                      lambda k: None)
        offsets = self._offsets(sentences)
        owners, kept = [], []
        for text, (tokens, _special, vecs), offs in zip(sentences, encoded, offsets):
            if len(offs) != len(tokens):
                raise RuntimeError("tokenizer offsets do not match the encoded tokens")
            owner = token_words(text, offs)
            keep = owner >= 0
            owners.append(owner[keep])
            kept.append(vecs[keep])
        if transform is not None:
            kept = map_rows(kept, transform)
        return list(zip(kept, owners))

    def explain(self, sources: list[str], hypotheses: list[str], progress: bool = False
                ) -> list[WordScores]:
        """One ``WordScores`` per pair, in order: every word term the scorer can compute
        (``alignment.terms.WORD_TERMS``), each side's words combined by the weights."""
        from alignment.terms import WordBatch

        from .score_result import validate_pairs

        validate_pairs(sources, hypotheses)
        sc = self.scorer
        clock = time.perf_counter()
        src_text = sc.text(sources) if sc.text is not None else list(sources)
        src = self._vectors(src_text, sc._source_transform(), progress, "encoding sources")
        hyp = self._vectors(list(hypotheses), sc._target_transform(), progress,
                            "encoding hypotheses")
        self.seconds = {"encoding": time.perf_counter() - clock}
        batch, runtime = WordBatch(src_text, list(hypotheses), src, hyp, self.pool, sc), \
            sc.call_runtime(progress)
        found: dict[str, list[dict[str, np.ndarray]]] = {}
        for name, term in word_terms().items():
            if term.computable(sc, self.weights.get(name, 0.0)):
                clock = time.perf_counter()
                found[name] = term.values(batch, runtime)
                self.seconds[name] = time.perf_counter() - clock
        out = []
        for k, (s_text, h_text) in enumerate(zip(src_text, hypotheses)):
            terms = {n: v[k]["hyp"] for n, v in found.items() if "hyp" in v[k]}
            src_terms = {n: v[k]["src"] for n, v in found.items() if "src" in v[k]}
            out.append(WordScores(h_text.split(), combine(terms, self.weights), s_text.split(),
                                  combine(src_terms, self.weights), terms, src_terms))
        return out
