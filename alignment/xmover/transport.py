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


def cost_2020(src: np.ndarray, hyp: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the unit-normalised src and hyp n-gram vectors."""
    return pairwise_sq_dist(_unit_rows(src.astype(np.float64)), _unit_rows(hyp.astype(np.float64)))


def cost_2022(src: np.ndarray, hyp: np.ndarray) -> np.ndarray:
    """Euclidean distances among all unit-normalised src+hyp points ((m + k) × (m + k))."""
    points = _unit_rows(np.concatenate([src, hyp]).astype(np.float64))
    return np.sqrt(_denoise(pairwise_sq_dist(points, points)))


SQ_DIST_NOISE = 1e-13
"""Squared distances between unit vectors below this are rounding noise of the |x|² + |y|² − 2x·y
expansion (identical points come out as ~1e-16, i.e. ~1e-8 after the square root) and count as 0,
so equal tokens cost exactly nothing on every path."""


def _denoise(sq: np.ndarray) -> np.ndarray:
    return np.where(sq < SQ_DIST_NOISE, 0.0, sq)


def solve_2020(cost: np.ndarray, src_mass: np.ndarray, hyp_mass: np.ndarray) -> float:
    """1 − EMD between the normalised masses under ``cost_2020``'s matrix."""
    return 1.0 - emd(src_mass / src_mass.sum(), hyp_mass / hyp_mass.sum(), cost)


def solve_2022(cost: np.ndarray, src_mass: np.ndarray, hyp_mass: np.ndarray,
               keep_share: float = 0.3) -> float:
    """Transport over the concatenated points (src masses on the first m, hyp masses on the
    last k, each normalised, +1e-9 everywhere); keep the src→hyp block of the flow, prune it to
    its largest flows; 1 / (1 + Σ flow · cost)."""
    m, k = len(src_mass), len(hyp_mass)
    a = np.concatenate([src_mass / src_mass.sum(), np.zeros(k)]) + 1e-9
    b = np.concatenate([np.zeros(m), hyp_mass / hyp_mass.sum()]) + 1e-9
    flow = prune_flows(emd_flow(a, b, cost)[:m, m:], keep_share)
    return 1.0 / (1.0 + float((flow * cost[:m, m:]).sum()))


def score_2020(src: np.ndarray, src_mass: np.ndarray, hyp: np.ndarray, hyp_mass: np.ndarray) -> float:
    """Zhao et al. 2020: unit-normalised n-gram vectors, squared Euclidean cost, masses
    normalised to 1, exact EMD; score = 1 − EMD."""
    return solve_2020(cost_2020(src, hyp), src_mass, hyp_mass)


def score_2022(src: np.ndarray, src_mass: np.ndarray, hyp: np.ndarray, hyp_mass: np.ndarray,
               keep_share: float = 0.3) -> float:
    """The later public code: Euclidean cost over the concatenated src+hyp points, transport
    between src-only and hyp-only masses, top-flow pruning; score = 1 / (1 + Σ flow · cost)."""
    return solve_2022(cost_2022(src, hyp), src_mass, hyp_mass, keep_share)


def prune_flows(flow: np.ndarray, share: float = 0.3) -> np.ndarray:
    """With k = max(int(share · #non-zero flows), 1), zero every flow strictly below the k-th
    smallest non-zero flow (the public 2022 code's pruning, kept exactly)."""
    nonzero = np.sort(flow[flow > 0])
    if not len(nonzero):
        return flow
    kth = nonzero[max(int(share * len(nonzero)), 1) - 1]
    return np.where(flow < kth, 0.0, flow)
