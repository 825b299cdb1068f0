"""Agreement statistics between metric scores and human judgments: Pearson and Kendall with
bootstrap intervals, Williams' test and a paired bootstrap for two metrics scored on the same
segments, and the system-level statistics WMT reports (Pearson, pairwise accuracy)."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r (NaN when either side is constant), kept within [−1, 1] where rounding
    would carry a perfect agreement past it (1.0000000000000002 is no Pearson a card reads)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a, b = a - a.mean(), b - b.mean()
    denom = np.sqrt((a * a).sum() * (b * b).sum())
    return float(np.clip((a * b).sum() / denom, -1.0, 1.0)) if denom > 0 else float("nan")


def kendall(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's τ-b (scipy's)."""
    from scipy.stats import kendalltau

    return float(kendalltau(a, b).statistic)


def bootstrap_ci(metric: np.ndarray, human: np.ndarray, fn: Callable, n: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of ``fn(metric, human)`` over segment resamples (with replacement)."""
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(n):
        idx = rng.integers(0, len(metric), len(metric))
        stats.append(fn(metric[idx], human[idx]))
    lo, hi = np.nanpercentile(stats, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def williams_t(r12: float, r13: float, r23: float, n: int) -> float:
    """Williams' (1959) t statistic, n − 3 degrees of freedom, for the difference of two
    dependent correlations that share variable 1 (WMT: r12 = r(human, metric A), r13 = r(human,
    metric B), r23 = r(A, B); Graham & Baldwin 2014)."""
    if n < 4:
        raise ValueError("Williams' test needs at least 4 segments")
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denom = 2 * det * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    if denom <= 0:
        return float("nan")
    return (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denom)


def williams_test(human: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(t, one-sided p) that metric ``a`` correlates better with ``human`` than ``b`` does,
    Pearson on the same segments (WMT's significance test for segment-level metrics)."""
    from scipy.stats import t as student_t

    n = len(human)
    stat = williams_t(pearson(human, a), pearson(human, b), pearson(a, b), n)
    return stat, float(student_t.sf(stat, n - 3)) if math.isfinite(stat) else float("nan")


def paired_bootstrap_difference(human: np.ndarray, a: np.ndarray, b: np.ndarray,
                                fn: Callable = pearson, n: int = 1000, seed: int = 0,
                                level: float = 0.95) -> tuple[float, float, float]:
    """fn(a, human) − fn(b, human) and its percentile interval, both metrics resampled on the
    same segments (a paired bootstrap of the difference of correlations)."""
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n):
        idx = rng.integers(0, len(human), len(human))
        diffs.append(fn(a[idx], human[idx]) - fn(b[idx], human[idx]))
    lo, hi = np.nanpercentile(diffs, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return fn(a, human) - fn(b, human), float(lo), float(hi)


def pairwise_accuracy(metric: np.ndarray, human: np.ndarray) -> float:
    """Share of system pairs the metric orders as people do (Kocmi et al. 2021; ties in the
    human scores are left out, a metric tie counts as wrong)."""
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    agree = total = 0
    for i in range(len(human)):
        for j in range(i + 1, len(human)):
            dh = human[i] - human[j]
            if dh == 0:
                continue
            total += 1
            agree += int(np.sign(metric[i] - metric[j]) == np.sign(dh))
    return agree / total if total else float("nan")
