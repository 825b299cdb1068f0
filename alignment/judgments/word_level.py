"""Agreement of word scores with people's word labels: the Eval4NLP 2021 metrics (per sentence
AUC, average precision and recall at top-K, averaged over the sentences that have both an
error and a correct word, as the task's ``scripts/evaluate.py`` computes them) and the WMT20
word-level measure (Matthews correlation of OK/BAD tags over all words), with bootstrap
intervals over sentences."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment.errors import InputError


@dataclass
class LabelledWords:
    """Translations with people's word labels: per sentence its pair, source and MT output
    (whitespace-tokenised), and one 0/1 a token (1: an error) for the MT output (``mt_tags``)
    and the source (``src_tags``)."""

    lp: list[str]
    src: list[str]
    mt: list[str]
    mt_tags: list[np.ndarray]
    src_tags: list[np.ndarray]

    def __len__(self) -> int:
        return len(self.mt)

    @property
    def pairs(self) -> list[str]:
        return list(dict.fromkeys(self.lp))

    def of_pair(self, pair: str) -> "LabelledWords":
        keep = [i for i, lp in enumerate(self.lp) if lp == pair]
        pick = (lambda xs: [xs[i] for i in keep])
        return LabelledWords(pick(self.lp), pick(self.src), pick(self.mt), pick(self.mt_tags),
                             pick(self.src_tags))


WORD_COLUMNS = ("lp", "src", "mt", "src_tags", "mt_tags")


def parse_tags(text: str, n_tokens: int, what: str, path: Path | str, line: int) -> np.ndarray:
    """One line of tags (0/1 or OK/BAD, one a whitespace token of its sentence)."""
    values = []
    for tag in text.split():
        if tag in ("0", "OK"):
            values.append(0)
        elif tag in ("1", "BAD"):
            values.append(1)
        else:
            raise InputError(f"{what}: tag '{tag}' is not 0/1 or OK/BAD", path=path, line=line)
    if len(values) != n_tokens:
        raise InputError(f"{what}: {len(values)} tags for a sentence of {n_tokens} tokens",
                         path=path, line=line)
    return np.asarray(values, dtype=np.int8)


def format_words(data: LabelledWords) -> str:
    """``data`` as the TSV ``read_words`` reads: a header, then lp, src, mt, src_tags, mt_tags
    (tags as space-separated 0/1)."""
    lines = ["\t".join(WORD_COLUMNS)]
    for i in range(len(data)):
        lines.append("\t".join([data.lp[i], " ".join(data.src[i].split()),
                                " ".join(data.mt[i].split()),
                                " ".join(map(str, data.src_tags[i].tolist())),
                                " ".join(map(str, data.mt_tags[i].tolist()))]))
    return "\n".join(lines) + "\n"


def read_words(path: str | Path) -> LabelledWords:
    """A word-labels TSV (``format_words``); every fault names the file and line."""
    from alignment.data.corpus import read_lines

    path = Path(path)
    lines = read_lines(path)
    if not lines or tuple(lines[0].split("\t")) != WORD_COLUMNS:
        raise InputError(f"header is not {'/'.join(WORD_COLUMNS)}", path=path, line=1)
    out = LabelledWords([], [], [], [], [])
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(WORD_COLUMNS):
            raise InputError(f"{len(cells)} fields, the header has {len(WORD_COLUMNS)}",
                             path=path, line=number)
        lp, src, mt, src_tags, mt_tags = cells
        if not src.split() or not mt.split():
            raise InputError("empty source or MT output", path=path, line=number)
        out.lp.append(lp)
        out.src.append(src)
        out.mt.append(mt)
        out.src_tags.append(parse_tags(src_tags, len(src.split()), "src_tags", path, number))
        out.mt_tags.append(parse_tags(mt_tags, len(mt.split()), "mt_tags", path, number))
    if not len(out):
        raise InputError("no labelled sentences (only a header)", path=path)
    return out


def load_words(data: Path, split: str, pairs: list[str] | None, known: tuple[str, ...],
               name: str) -> LabelledWords:
    """The labelled words of a prepared folder (``data/PAIR/SPLIT.words.tsv``), for ``pairs``
    or every pair present."""
    from .segments import prepared_files

    parts = [read_words(path) for path in
             prepared_files(data, f"{split}.words.tsv", pairs, known, name).values()]
    return LabelledWords(*(sum((getattr(p, f) for p in parts), []) for f in
                           ("lp", "src", "mt", "mt_tags", "src_tags")))


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve: the chance that an error outscores a correct word, ties half."""
    from scipy.stats import rankdata

    labels = np.asarray(labels, dtype=bool)
    pos, neg = int(labels.sum()), int((~labels).sum())
    ranks = rankdata(np.asarray(scores, dtype=np.float64))
    return float((ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg))


def average_precision(labels: np.ndarray, scores: np.ndarray) -> float:
    """Σ over distinct thresholds (recall gain × precision), as scikit-learn defines it."""
    labels = np.asarray(labels, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="mergesort")
    s, y = scores[order], labels[order]
    last = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]  # the end of each tie group
    tp = np.cumsum(y)[last]
    fp = (last + 1) - tp
    recall = tp / labels.sum()
    precision = tp / (tp + fp)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def recall_at_top_k(labels: np.ndarray, scores: np.ndarray) -> float:
    """The share of errors among the K highest-scoring words, K the number of errors (ties
    ordered as the task's script orders them: numpy's argsort, reversed)."""
    labels = np.asarray(labels)
    k = int(labels.sum())
    top = np.argsort(np.asarray(scores))[::-1][:k]
    return float(labels[top].sum() / k)


EXPLANATION_METRICS = {"auc": roc_auc, "ap": average_precision, "recall_at_k": recall_at_top_k}


def explanation_metrics(labels: list[np.ndarray], scores: list[np.ndarray],
                        resamples: int = 1000, seed: int = 0) -> dict[str, float]:
    """AUC, AP and recall at top-K, each averaged over the sentences with at least one error
    and one correct word (the others are skipped, as the task's script skips them), with a
    95% bootstrap interval over those sentences (``_lo``/``_hi``) and their count ``n``."""
    if len(labels) != len(scores):
        raise InputError(f"{len(scores)} score lines for {len(labels)} label lines",
                         parameter="scores")
    per: dict[str, list[float]] = {name: [] for name in EXPLANATION_METRICS}
    for k, (y, s) in enumerate(zip(labels, scores)):
        if len(y) != len(s):
            raise InputError(f"sentence {k + 1}: {len(s)} word scores for {len(y)} labels",
                             parameter="scores")
        if y.sum() == 0 or y.sum() == len(y):
            continue
        for name, fn in EXPLANATION_METRICS.items():
            per[name].append(fn(y, s))
    n = len(per["auc"])
    out: dict[str, float] = {"n": float(n)}
    if not n:
        return out
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(resamples, n))
    for name, values in per.items():
        v = np.asarray(values)
        means = v[draws].mean(1)
        out[name] = float(v.mean())
        out[f"{name}_lo"], out[f"{name}_hi"] = (float(x) for x in np.quantile(means, [.025, .975]))
    return out


def mcc(labels: np.ndarray, predicted: np.ndarray) -> float:
    """Matthews correlation of binary predictions with binary labels (0 when undefined)."""
    y, p = np.asarray(labels, dtype=bool), np.asarray(predicted, dtype=bool)
    tp, tn = float((y & p).sum()), float((~y & ~p).sum())
    fp, fn = float((~y & p).sum()), float((y & ~p).sum())
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return 0.0 if denom == 0 else float((tp * tn - fp * fn) / denom)


def best_threshold(labels: list[np.ndarray], scores: list[np.ndarray]) -> float:
    """The threshold on word scores (a word is BAD when its score is above it) with the highest
    MCC over all words of ``labels``: chosen on dev, applied to test."""
    y = np.concatenate(labels).astype(bool)
    s = np.concatenate(scores)
    candidates = np.unique(np.quantile(s, np.linspace(0.02, 0.98, 97)))
    values = [mcc(y, s > t) for t in candidates]
    return float(candidates[int(np.argmax(values))])


def tag_mcc(labels: list[np.ndarray], scores: list[np.ndarray], threshold: float,
            resamples: int = 1000, seed: int = 0) -> dict[str, float]:
    """MCC of ``score > threshold`` against the labels over all words, with a 95% bootstrap
    interval over sentences."""
    y = [np.asarray(v, dtype=bool) for v in labels]
    p = [np.asarray(s) > threshold for s in scores]
    out = {"mcc": mcc(np.concatenate(y), np.concatenate(p))}
    rng = np.random.default_rng(seed)
    n = len(y)
    draws = [rng.integers(0, n, size=n) for _ in range(resamples)]
    values = [mcc(np.concatenate([y[i] for i in d]), np.concatenate([p[i] for i in d]))
              for d in draws]
    out["mcc_lo"], out["mcc_hi"] = (float(x) for x in np.quantile(values, [.025, .975]))
    return out
