"""Exact optimal transport (POT's network simplex) and the two published XMoverScore formulas."""
from __future__ import annotations

import numpy as np


def emd_flow(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """The exact optimal flow between masses ``a`` and ``b`` (equal totals) for ``cost``."""
    import ot

    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    return ot.emd(a, b, cost, numItermax=10_000_000)


def emd(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> float:
    """The earth mover's distance Σ flow · cost of the exact optimal flow."""
    return float((emd_flow(a, b, cost) * cost).sum())


def _unit_rows(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def pairwise_sq_dist(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    d = (x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2.0 * x @ y.T
    return np.maximum(d, 0.0)


def score_2020(src: np.ndarray, src_mass: np.ndarray, hyp: np.ndarray, hyp_mass: np.ndarray) -> float:
    """Zhao et al. 2020: unit-normalised n-gram vectors, squared Euclidean cost, masses
    normalised to 1, exact EMD; score = 1 − EMD."""
    x, y = _unit_rows(src.astype(np.float64)), _unit_rows(hyp.astype(np.float64))
    cost = pairwise_sq_dist(x, y)
    return 1.0 - emd(src_mass / src_mass.sum(), hyp_mass / hyp_mass.sum(), cost)


def score_2022(src: np.ndarray, src_mass: np.ndarray, hyp: np.ndarray, hyp_mass: np.ndarray,
               keep_share: float = 0.3) -> float:
    """The later public code: transport over the concatenated src+hyp points (src masses on the
    first m points, hyp masses on the last k, each normalised, +1e-9 everywhere), Euclidean cost;
    only the src→hyp block of the flow is kept and pruned to its largest flows; score =
    1 / (1 + Σ flow · cost)."""
    x, y = _unit_rows(src.astype(np.float64)), _unit_rows(hyp.astype(np.float64))
    m, k = len(x), len(y)
    points = np.concatenate([x, y])
    cost = np.sqrt(pairwise_sq_dist(points, points))
    a = np.concatenate([src_mass / src_mass.sum(), np.zeros(k)]) + 1e-9
    b = np.concatenate([np.zeros(m), hyp_mass / hyp_mass.sum()]) + 1e-9
    flow = prune_flows(emd_flow(a, b, cost)[:m, m:], keep_share)
    return 1.0 / (1.0 + float((flow * cost[:m, m:]).sum()))


def prune_flows(flow: np.ndarray, share: float = 0.3) -> np.ndarray:
    """With k = max(int(share · #non-zero flows), 1), zero every flow strictly below the k-th
    smallest non-zero flow (the public 2022 code's pruning, kept exactly)."""
    nonzero = np.sort(flow[flow > 0])
    if not len(nonzero):
        return flow
    kth = nonzero[max(int(share * len(nonzero)), 1) - 1]
    return np.where(flow < kth, 0.0, flow)
