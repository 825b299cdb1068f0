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
    data = Path(data)
    present = [p for p in known if (data / p / f"{split}.words.tsv").is_file()]
    for pair in pairs or []:
        if pair not in known:
            raise InputError(f"{name} has no pair '{pair}' (it has: {', '.join(known)})",
                             parameter="pairs")
        if pair not in present:
            raise InputError(f"{data / pair / (split + '.words.tsv')} is missing (make it with: "
                             f"crossalign data {name} --from CLONE --pairs {pair})", parameter="data")
    chosen = pairs or present
    if not chosen:
        raise InputError(f"{data} holds no {name} word labels for {split} (make them with: "
                         f"crossalign data {name} --from CLONE)", parameter="data")
    parts = [read_words(data / p / f"{split}.words.tsv") for p in chosen]
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


WORD_METRICS = ("auc", "ap", "recall_at_k")


@dataclass
class ScoredWords:
    """Word-level agreement of every row: ``metrics`` keyed ``ROW/PAIR/SIDE/METRIC`` (SIDE
    ``mt`` or ``src``; METRIC an explanation metric with ``_lo``/``_hi``, ``n``, or ``mcc``),
    the rows in order, and each row's signature."""

    metrics: dict[str, float]
    rows: list[str]
    signatures: dict[str, str]
    seconds: dict[str, float]
    grid: list[tuple[dict[str, float], float]] | None = None


def score_words(data: LabelledWords, rows: list, options: dict, lm: str | None = None,
                weights: dict[str, float] | None = None, dev: LabelledWords | None = None,
                resamples: int = 1000, seed: int = 0, log=print, grid: bool = False
                ) -> ScoredWords:
    """Word scores of every ``rows`` entry (``scoring.EncoderRow``) on ``data``, measured
    against its labels: the row's combined score (``weights``), each term alone, and a random
    row (the floor). With ``dev`` (labelled words of a dev split), each row's BAD threshold for
    MCC is the one with the best MCC on dev; without it, no MCC. With ``grid``, the first
    row's term weights are searched over ``WEIGHT_GRID`` (``weight_grid``): how the default
    weights were chosen, on dev."""
    import time

    from alignment.evaluation.metrics import get_metric
    from alignment.xmover.words import TERMS, WordScorer

    for row in rows:
        for pair in data.pairs:
            row.encoder_for(pair)
    metrics: dict[str, float] = {}
    labels: list[str] = []
    signatures: dict[str, str] = {}
    seconds = {"explain": 0.0}
    for_grid: list[tuple[list[np.ndarray], list[dict[str, np.ndarray]]]] = []

    def add(label: str, pair: str, side: str, tags: list[np.ndarray], scores: list[np.ndarray],
            threshold: float | None = None) -> None:
        if label not in labels:
            labels.append(label)
        found = explanation_metrics(tags, scores, resamples, seed)
        for k, v in found.items():
            metrics[f"{label}/{pair}/{side}/{k}"] = v
        if threshold is not None:
            for k, v in tag_mcc(tags, scores, threshold, resamples, seed).items():
                metrics[f"{label}/{pair}/{side}/{k}"] = v

    for pair in data.pairs:
        part = data.of_pair(pair)
        dev_part = dev.of_pair(pair) if dev is not None and pair in dev.pairs else None
        for row in rows:
            log(f"word scores of {pair} with {row.label} ({len(part)} segments)")
            scorer = get_metric("xmoverscore").build(row.encoder_for(pair),
                                                     languages=tuple(pair.split("-")), lm=lm,
                                                     **options)
            words = WordScorer(scorer, weights)
            t0 = time.perf_counter()
            found = words.explain(part.src, part.mt)
            seconds["explain"] += time.perf_counter() - t0
            on_dev = words.explain(dev_part.src, dev_part.mt) if dev_part is not None else None
            signatures[row.label] = words.signature
            if grid and row is rows[0]:
                for_grid.append((part.mt_tags, [w.terms for w in found]))
            views = {"": (lambda w: w.scores, lambda w: w.src_scores)}
            views.update({f" · {t} alone": ((lambda w, t=t: w.terms[t]),
                                           (lambda w, t=t: w.src_terms.get(t)))
                          for t in TERMS if t in found[0].terms})
            for suffix, (mt_view, src_view) in views.items():
                label = row.label + suffix
                for side, view, tags, dev_tags in (
                        ("mt", mt_view, part.mt_tags, dev_part.mt_tags if dev_part else None),
                        ("src", src_view, part.src_tags, dev_part.src_tags if dev_part else None)):
                    scores = [view(w) for w in found]
                    if any(s is None for s in scores):
                        continue
                    threshold = None if on_dev is None else \
                        best_threshold(dev_tags, [view(w) for w in on_dev])
                    add(label, pair, side, tags, scores, threshold)
        rng = np.random.default_rng(seed)
        for side, tags in (("mt", part.mt_tags), ("src", part.src_tags)):
            add("random word scores", pair, side, tags, [rng.random(len(t)) for t in tags])
    return ScoredWords(metrics, labels, signatures, seconds,
                       weight_grid(for_grid) if grid else None)


def weight_grid(parts: list[tuple[list[np.ndarray], list[dict[str, np.ndarray]]]]
                ) -> list[tuple[dict[str, float], float]]:
    """Every weighting of the word terms over ``WEIGHT_GRID`` (up to scale: the first nonzero
    weight's ratio is what matters, so duplicates are skipped), ranked by the mean over pairs
    of (AUC + AP) / 2 on MT words; ``parts`` holds per pair the labels and each sentence's
    terms."""
    import itertools

    from alignment.xmover.words import TERMS, WEIGHT_GRID, combine

    present = [t for t in TERMS if all(t in terms[0] for _, terms in parts)]
    seen, ranked = set(), []
    for values in itertools.product(WEIGHT_GRID, repeat=len(present)):
        if not any(values):
            continue
        top = max(values)
        key = tuple(round(v / top, 6) for v in values)
        if key in seen:
            continue
        seen.add(key)
        weights = dict(zip(present, values))
        quality = []
        for tags, terms in parts:
            found = explanation_metrics(tags, [combine(t, weights) for t in terms], 1)
            quality.append((found["auc"] + found["ap"]) / 2)
        ranked.append((weights, float(np.mean(quality))))
    return sorted(ranked, key=lambda kv: -kv[1])


def format_word_table(result: ScoredWords, pairs: list[str], title: str,
                      anchors: tuple = ()) -> str:
    """One block a pair: every row's AUC, AP and recall at top-K [95% CI] on MT words and on
    source words, MCC where measured; then the published anchors of those pairs."""
    m = result.metrics
    cell = (lambda key: "–" if key not in m else
            f"{m[key]:.3f} [{m[key + '_lo']:.3f}, {m[key + '_hi']:.3f}]")
    lines = [title]
    for pair in pairs:
        n = m.get(f"{result.rows[0]}/{pair}/mt/n")
        lines.append(f"\n{pair}" + (f" ({int(n)} sentences with both an error and a correct "
                                    "MT word)" if n is not None else ""))
        has_mcc = any(f"{r}/{pair}/mt/mcc" in m for r in result.rows)
        head = ["row", "MT AUC", "MT AP", "MT recall@K", "src AUC", "src AP"] + (
            ["MT MCC", "src MCC"] if has_mcc else [])
        lines.append(" | ".join(head))
        for r in result.rows:
            cells = [r] + [cell(f"{r}/{pair}/mt/{k}") for k in WORD_METRICS] + \
                [cell(f"{r}/{pair}/src/{k}") for k in ("auc", "ap")]
            if has_mcc:
                cells += [cell(f"{r}/{pair}/{side}/mcc") for side in ("mt", "src")]
            lines.append(" | ".join(cells))
    shown = [a for a in anchors if any(p in a.values for p in pairs)]
    if shown:
        lines.append("\npublished:")
        for a in shown:
            vals = "  ".join(f"{p} {a.values[p]:.3f}" for p in pairs if p in a.values)
            lines.append(f"  {a.label}: {vals}" + (f"  ({a.note})" if a.note else ""))
    return "\n".join(lines)
