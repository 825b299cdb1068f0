"""Exact optimal transport (POT's network simplex) and the two published XMoverScore formulas."""
from __future__ import annotations

import numpy as np

from alignment.catalogue import check_choice

MIN_PARALLEL_PROBLEMS = 2000  # below this, worker start-up costs more than it saves


def _solve(job: tuple) -> float:
    solve, cost, src_mass, hyp_mass = job
    return solve(cost, src_mass, hyp_mass)


def solve_all(jobs: list[tuple], n_jobs: int = 1, progress: bool = False) -> np.ndarray:
    """Each ``(solve, cost, src_mass, hyp_mass)`` problem's score, in order: in a pool of
    ``n_jobs`` processes from ``MIN_PARALLEL_PROBLEMS`` problems up, else here."""
    if n_jobs > 1 and len(jobs) >= MIN_PARALLEL_PROBLEMS:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(n_jobs) as pool:
            return np.array(list(pool.map(_solve, jobs, chunksize=max(1, len(jobs) // (4 * n_jobs)))))
    from tqdm.auto import tqdm

    return np.array([_solve(j) for j in tqdm(jobs, desc="transport", unit="pair",
                                             disable=not progress, leave=False)])


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
    """Euclidean distances between the unit-normalised src and hyp n-gram vectors (m × k): the
    source→hypothesis block of the public code's (m + k) × (m + k) matrix, the only part a flow
    uses once same-point mass has cancelled (see ``solve_2022``)."""
    return np.sqrt(_denoise(cost_2020(src, hyp)))


def cost_2022_concatenated(src: np.ndarray, hyp: np.ndarray) -> np.ndarray:
    """The public code's matrix: Euclidean distances among all unit-normalised src+hyp points."""
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


FLOW_TOLERANCE = 1e-12
"""A flow counts as non-zero (for pruning) only above this share of the total mass, 1. Exact
solvers leave rounding residues of a few ulps (~1e-17) where the optimal flow is 0, and which
entries come out as residues depends on the solver; a real flow below 1e-12 moves the score by
less than 2e-12 (costs are at most 2), so the threshold changes nothing measurable except that
the count of flows, and hence the pruning, no longer depends on the solver."""


def solve_2022(cost: np.ndarray, src_mass: np.ndarray, hyp_mass: np.ndarray,
               keep_share: float = 0.3, solver: str = "network-simplex") -> float:
    """The m × k transport between the normalised src and hyp masses under ``cost_2022``'s
    matrix, pruned to its largest flows; 1 / (1 + Σ flow · cost).

    The public code solves the concatenated (m + k) problem with 1e-9 added to every mass; as the
    diagonal costs 0 and the cost is a metric, an optimal flow first cancels each point's own
    1e-9 (pyemd's pre-flow does exactly this), leaving this m × k problem. Solving it directly,
    with ``FLOW_TOLERANCE``, gives the same score whatever the exact solver (``solver``:
    ``network-simplex`` or ``lp``)."""
    a, b = src_mass / src_mass.sum(), hyp_mass / hyp_mass.sum()
    flow = prune_flows(exact_flow(a, b, cost, solver), keep_share, FLOW_TOLERANCE)
    return 1.0 / (1.0 + float((flow * cost).sum()))


def solve_2022_concatenated(cost: np.ndarray, src_mass: np.ndarray, hyp_mass: np.ndarray,
                            keep_share: float = 0.3, solver: str = "network-simplex") -> float:
    """The public code's formulation, written out: transport over the concatenated points (src
    masses on the first m, hyp masses on the last k, each normalised, +1e-9 everywhere) under
    ``cost_2022_concatenated``'s matrix, each point's own mass cancelled first (the pre-flow of
    pyemd's default backend), the src→hyp block pruned counting every flow > 0.
    Not used for scores: kept to measure how much its score depends on the solver's rounding."""
    return 1.0 / (1.0 + float((concatenated_flow(cost, src_mass, hyp_mass, keep_share, solver)
                               * cost[:len(src_mass), len(src_mass):]).sum()))


def concatenated_flow(cost: np.ndarray, src_mass: np.ndarray, hyp_mass: np.ndarray,
                      keep_share: float = 0.3, solver: str = "network-simplex") -> np.ndarray:
    """The pruned src→hyp block of the public formulation's flow (see ``solve_2022_concatenated``)."""
    m, k = len(src_mass), len(hyp_mass)
    a = np.concatenate([src_mass / src_mass.sum(), np.zeros(k)]) + 1e-9
    b = np.concatenate([np.zeros(m), hyp_mass / hyp_mass.sum()]) + 1e-9
    own = np.minimum(a, b)
    a, b = a - own, b - own
    return prune_flows(exact_flow(a, b, cost, solver)[:m, m:], keep_share)


def has_rounding_effects(flow: np.ndarray, keep_share: float = 0.3) -> bool:
    """Whether an unpruned flow has an entry the solver's rounding decides: a residue in
    (0, FLOW_TOLERANCE], or a flow within FLOW_TOLERANCE below the public pruning threshold
    (ties split by rounding). Where there is none, r2 and the public score agree."""
    counted = np.sort(flow[flow > 0])
    kth = counted[max(int(keep_share * len(counted)), 1) - 1]
    residue = ((flow > 0) & (flow <= FLOW_TOLERANCE)).any()
    split_tie = ((flow < kth) & (flow >= kth - FLOW_TOLERANCE)).any()
    return bool(residue or split_tie)


SOLVERS = ("network-simplex", "lp")


def exact_flow(a: np.ndarray, b: np.ndarray, cost: np.ndarray,
               solver: str = "network-simplex") -> np.ndarray:
    """An optimal flow from POT's network simplex or from the HiGHS LP (``lp_flow``)."""
    check_choice(solver, SOLVERS, "solver")
    return emd_flow(a, b, cost) if solver == "network-simplex" else lp_flow(a, b, cost)


def lp_flow(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """An optimal flow from a general LP solver (HiGHS): an exact solver independent of POT's
    network simplex, to check that a score does not depend on which solver ran."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, vstack

    m, k = cost.shape
    rows = csr_matrix((np.ones(m * k), (np.repeat(np.arange(m), k), np.arange(m * k))), (m, m * k))
    cols = csr_matrix((np.ones(m * k), (np.tile(np.arange(k), m), np.arange(m * k))), (k, m * k))
    b = b * (a.sum() / b.sum())  # equal totals to the last bit, as the LP needs
    res = linprog(cost.ravel(), A_eq=vstack([rows, cols]), b_eq=np.concatenate([a, b]),
                  bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"LP transport failed: {res.message}")
    return np.maximum(res.x.reshape(m, k), 0.0)


def score_2020(src: np.ndarray, src_mass: np.ndarray, hyp: np.ndarray, hyp_mass: np.ndarray) -> float:
    """Zhao et al. 2020: unit-normalised n-gram vectors, squared Euclidean cost, masses
    normalised to 1, exact EMD; score = 1 − EMD."""
    return solve_2020(cost_2020(src, hyp), src_mass, hyp_mass)


def score_2022(src: np.ndarray, src_mass: np.ndarray, hyp: np.ndarray, hyp_mass: np.ndarray,
               keep_share: float = 0.3) -> float:
    """The later public code's score, made solver-independent: Euclidean cost between unit src
    and hyp n-grams, exact transport, top-flow pruning; score = 1 / (1 + Σ flow · cost)."""
    return solve_2022(cost_2022(src, hyp), src_mass, hyp_mass, keep_share)


def prune_flows(flow: np.ndarray, share: float = 0.3, tolerance: float = 0.0) -> np.ndarray:
    """With k = max(int(share · #flows above ``tolerance``), 1), zero every flow below the k-th
    smallest of them (the public 2022 code's rule, which counts every flow > 0, is
    ``tolerance=0``). With a tolerance, flows within it of the k-th are kept too, so that two
    flows equal up to rounding are never split by it."""
    counted = np.sort(flow[flow > tolerance])
    if not len(counted):
        return flow
    kth = counted[max(int(share * len(counted)), 1) - 1]
    return np.where(flow < kth - tolerance, 0.0, flow)
