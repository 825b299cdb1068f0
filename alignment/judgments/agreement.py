"""How well several metrics agree with people on one benchmark's judged segments: per pair and
on average, Pearson with a bootstrap interval and Kendall's τ; every row against the first
with Williams' test and a paired bootstrap of the difference (the same segment resamples for
every row, pairs resampled within themselves); system-level Pearson and pairwise accuracy
where whole system outputs are scored."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alignment.evaluation.correlation import kendall, pairwise_accuracy, pearson, williams_test

from .segments import JudgedSegments


@dataclass
class Row:
    """One metric's (or data column's) score for every judged segment, and how it was made."""

    label: str
    scores: np.ndarray
    signature: str


def _resampled_pearson(x: np.ndarray, h: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Pearson of ``x`` with ``h`` on every resample (rows of ``idx``), vectorised."""
    xs, hs = x[idx], h[idx]
    xs = xs - xs.mean(1, keepdims=True)
    hs = hs - hs.mean(1, keepdims=True)
    denom = np.sqrt((xs * xs).sum(1) * (hs * hs).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, np.clip((xs * hs).sum(1) / denom, -1.0, 1.0), np.nan)


def _interval(stats: np.ndarray, level: float) -> tuple[float, float]:
    lo, hi = np.nanpercentile(stats, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def mean_pearson(data: JudgedSegments, scores: np.ndarray, pairs: list[str] | None = None
                 ) -> float:
    """The mean over ``data``'s pairs (or ``pairs``) of each pair's Pearson with the human
    scores: the one number a setting is chosen by and a table's ``avg`` column."""
    lp, scores = np.asarray(data.lp), np.asarray(scores, dtype=np.float64)
    return float(np.mean([pearson(scores[lp == p], data.human[lp == p])
                          for p in (pairs or data.pairs)]))


def segment_agreement(data: JudgedSegments, rows: list[Row], resamples: int = 1000,
                      seed: int = 0, level: float = 0.95) -> dict[str, float]:
    """Flat metrics ``ROW/PAIR/pearson`` (``_lo``, ``_hi``), ``ROW/PAIR/kendall``,
    ``ROW/PAIR/segments``; for rows after the first ``ROW/PAIR/diff`` (``_lo``, ``_hi``: the
    paired bootstrap of Pearson minus the first row's), ``ROW/PAIR/williams_t`` and
    ``ROW/PAIR/williams_p`` (one-sided: this row better); the same over ``avg`` (the mean
    over pairs, its interval from the same per-pair resamples; no Williams test); and, with
    several pairs, over ``pooled`` (one Pearson over every pair's segments together, as
    WMT20's multilingual track ranks: only scores on one scale for every pair do well; the
    same resamples, joined)."""
    for row in rows:
        if len(row.scores) != len(data):
            raise ValueError(f"{row.label}: {len(row.scores)} scores for {len(data)} segments")
    out: dict[str, float] = {}
    rng = np.random.default_rng(seed)
    per_pair: dict[str, list[np.ndarray]] = {r.label: [] for r in rows}
    lp = np.asarray(data.lp)
    joined: list[np.ndarray] = []  # each pair's resamples as indices into every segment
    for pair in data.pairs:
        mask = lp == pair
        h = data.human[mask]
        idx = rng.integers(0, len(h), size=(resamples, len(h)))
        joined.append(np.flatnonzero(mask)[idx])
        stats = _cells(out, pair, rows, mask, h, idx, level)
        x0 = np.asarray(rows[0].scores, dtype=np.float64)[mask]
        for row in rows:
            per_pair[row.label].append(stats[row.label])
            if row is not rows[0]:
                out[f"{row.label}/{pair}/williams_t"], out[f"{row.label}/{pair}/williams_p"] = \
                    williams_test(h, np.asarray(row.scores, dtype=np.float64)[mask], x0)
    for row in rows:
        values = [out[f"{row.label}/{p}/pearson"] for p in data.pairs]
        out[f"{row.label}/avg/pearson"] = float(np.mean(values))
        out[f"{row.label}/avg/kendall"] = float(np.mean([out[f"{row.label}/{p}/kendall"]
                                                         for p in data.pairs]))
        avg = np.mean(per_pair[row.label], axis=0)
        out[f"{row.label}/avg/pearson_lo"], out[f"{row.label}/avg/pearson_hi"] = _interval(avg, level)
        if row is not rows[0]:
            base = np.mean(per_pair[rows[0].label], axis=0)
            out[f"{row.label}/avg/diff"] = out[f"{row.label}/avg/pearson"] - \
                out[f"{rows[0].label}/avg/pearson"]
            out[f"{row.label}/avg/diff_lo"], out[f"{row.label}/avg/diff_hi"] = _interval(avg - base, level)
    if len(data.pairs) > 1:
        _cells(out, "pooled", rows, slice(None), np.asarray(data.human, dtype=np.float64),
               np.concatenate(joined, axis=1), level)
    return out


def _cells(out: dict[str, float], column: str, rows: list[Row], pick, h: np.ndarray,
           idx: np.ndarray, level: float) -> dict[str, np.ndarray]:
    """``ROW/COLUMN/…`` over the segments ``pick`` selects (a pair's, or every one for
    ``pooled``): Pearson with its interval over the resamples ``idx``, Kendall, the count, and
    each row's paired difference from the first; returns each row's resampled Pearsons."""
    stats = {}
    for row in rows:
        x = np.asarray(row.scores, dtype=np.float64)[pick]
        key = f"{row.label}/{column}"
        out[f"{key}/pearson"], out[f"{key}/kendall"] = pearson(x, h), kendall(x, h)
        out[f"{key}/segments"] = float(len(h))
        stats[row.label] = _resampled_pearson(x, h, idx)
        out[f"{key}/pearson_lo"], out[f"{key}/pearson_hi"] = _interval(stats[row.label], level)
        if row is not rows[0]:
            out[f"{key}/diff"] = out[f"{key}/pearson"] - out[f"{rows[0].label}/{column}/pearson"]
            out[f"{key}/diff_lo"], out[f"{key}/diff_hi"] = _interval(
                stats[row.label] - stats[rows[0].label], level)
    return stats


def system_agreement(metric: dict[str, float], human: dict[str, float]) -> dict[str, float]:
    """System-level Pearson and pairwise accuracy of per-system metric scores."""
    names = sorted(set(metric) & set(human))
    m = np.array([metric[s] for s in names])
    h = np.array([human[s] for s in names])
    return {"system_pearson": pearson(m, h) if len(names) >= 3 else float("nan"),
            "pairwise_accuracy": pairwise_accuracy(m, h), "systems": float(len(names))}


def format_agreement(metrics: dict[str, float], rows: list[str], pairs: list[str], title: str,
                     anchors: list[tuple[str, dict[str, float]]] = ()) -> str:
    """The table: a row per metric, a column per pair and the average, each cell Pearson with
    its interval; then every row against the first (Δ Pearson, * where Williams' one-sided
    p < 0.05 and the paired interval excludes 0); anchors printed below as published; a
    ``pooled`` column where the metrics have one."""
    cols = [*pairs, "avg"] + (["pooled"] if f"{rows[0]}/pooled/pearson" in metrics else [])
    width = max(len(r) for r in [*rows, *(a for a, _ in anchors), "row"])
    cell = (lambda v, lo, hi: f"{v:.3f} [{lo:.3f},{hi:.3f}]")
    lines = [title, f"{'row':<{width}}  " + "  ".join(f"{c:^19}" for c in cols)]
    for r in rows:
        lines.append(f"{r:<{width}}  " + "  ".join(
            f"{cell(metrics[f'{r}/{c}/pearson'], metrics[f'{r}/{c}/pearson_lo'], metrics[f'{r}/{c}/pearson_hi']):^19}"
            for c in cols))
    for label, values in anchors:
        lines.append(f"{label:<{width}}  " + "  ".join(
            f"{(f'{values[c]:.3f}' if c in values else '–'):^19}" for c in cols))
    if len(rows) > 1:
        lines.append(f"\nagainst {rows[0]} (Δ Pearson [paired bootstrap 95% CI]; * Williams "
                     "p < .05 one-sided and the interval above 0)")
        for r in rows[1:]:
            cells = []
            for c in cols:
                d, lo, hi = (metrics[f"{r}/{c}/{k}"] for k in ("diff", "diff_lo", "diff_hi"))
                star = "*" if lo > 0 and metrics.get(f"{r}/{c}/williams_p", 0.0) < 0.05 else " "
                cells.append(f"{f'{d:+.3f} [{lo:+.3f},{hi:+.3f}]{star}':^19}")
            lines.append(f"{r:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)
