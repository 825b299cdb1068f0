"""VecMap-style unsupervised mapping (Artetxe et al. 2018), for static vectors: an initial
dictionary from matching similarity distributions (rows of the matrix square root of XXᵀ,
sorted), then self-learning (orthogonal map ↔ CSLS dictionary induction in both directions,
with dropout on the similarity matrix before each argmax — stochastic dictionary induction —
whose keep probability doubles after ``patience`` iterations without improvement of the mean
best similarity). Deviation from the published system: the final whitening → orthogonal →
re-weighting → de-whitening step is not applied (the map stays orthogonal and source-only).
For contextual encoders we run it on per-type centroids of the most frequent types (see
``MonolingualPool.centroids``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from alignment.catalogue import check_choice
from alignment.evaluation.csls import mean_topk_cosine, nearest, normalize
from alignment.mappings.procrustes import procrustes


def _prepare(v: torch.Tensor) -> torch.Tensor:
    """Length-normalise, centre, length-normalise again (what the similarity-distribution
    initialisation needs to be meaningful)."""
    v = normalize(v.double())
    return normalize(v - v.mean(0))


def similarity_signatures(v: torch.Tensor, sqrt: bool = True) -> torch.Tensor:
    """Each row's sorted similarity distribution: rows of the matrix square root of VVᵀ
    (U S Uᵀ for V = U S Wᵀ; ``sqrt=False``: VVᵀ itself) sorted, then unit-normalised,
    centred and unit-normalised again. Invariant to rotations of V, so rows of two languages
    can be compared."""
    if sqrt:
        u, sv, _ = torch.linalg.svd(v, full_matrices=False)
        sims = (u * sv) @ u.T
    else:
        sims = v @ v.T
    return _prepare(sims.sort(dim=1, descending=True).values)


INITS = ("similarity", "identity")


def _both_ways(a: torch.Tensor, b: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row of a with its CSLS-nearest row of b, and each row of b with its nearest of a."""
    fwd, _ = nearest(a, b, "csls", k)
    bwd, _ = nearest(b, a, "csls", k)
    return torch.cat([torch.arange(len(a)), bwd[:, 0]]), torch.cat([fwd[:, 0], torch.arange(len(b))])


def initial_dictionary(x: torch.Tensor, y: torch.Tensor, k: int = 10,
                       init: str = "similarity") -> tuple[torch.Tensor, torch.Tensor]:
    """Seed pairs by CSLS, both directions: between the two sides' similarity signatures
    (``"similarity"``, the published unsupervised initialisation; the first min(n_x, n_y) rows
    of each, as signatures must have equal length), or between the (centred, normalised)
    vectors themselves (``"identity"``: a multilingual encoder's shared space as the start —
    our change for contextual encoders, where the published one fails, see docs)."""
    check_choice(init, INITS, "init")
    if init == "identity":
        return _both_ways(_prepare(x), _prepare(y), k)
    n = min(len(x), len(y))
    return _both_ways(similarity_signatures(_prepare(x[:n])),
                      similarity_signatures(_prepare(y[:n])), k)


@dataclass
class SelfLearning:
    """The settings of the self-learning loop (the published defaults, smaller budgets)."""

    csls_k: int = 10
    keep_prob: float = 0.1          # stochastic dictionary induction: initial p
    patience: int = 50              # iterations without improvement before p doubles
    threshold: float = 1e-6         # improvement that counts
    max_iterations: int = 1000
    init: str = "similarity"
    seed: int = 0
    history: list[float] = field(default_factory=list)
    # filled by self_learning: the pairs (source rows, target rows) it started from
    seed_dictionary: tuple[torch.Tensor, torch.Tensor] | None = None


def induce(queries: torch.Tensor, keys: torch.Tensor, r_keys: torch.Tensor, keep_prob: float,
           generator: torch.Generator, chunk: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    """Each query's best key by CSLS-adjusted similarity (cos − r(key)/2, the ranking CSLS
    gives) after dropout on the similarity matrix (each entry kept with ``keep_prob``, dropped
    ones set to 0): indices and best values."""
    idx = torch.empty(len(queries), dtype=torch.long)
    best = torch.empty(len(queries), dtype=queries.dtype)
    for start in range(0, len(queries), chunk):
        sims = queries[start:start + chunk] @ keys.T - r_keys / 2
        if keep_prob < 1:
            sims = sims * (torch.rand(sims.shape, generator=generator, dtype=sims.dtype) < keep_prob)
        best[start:start + chunk], idx[start:start + chunk] = sims.max(dim=1)
    return idx, best


def self_learning(x: torch.Tensor, y: torch.Tensor, settings: SelfLearning | None = None,
                  seed_pairs: tuple[torch.Tensor, torch.Tensor] | None = None,
                  progress: bool = False) -> torch.Tensor:
    """The orthogonal W (source → target, applied as x W to length-normalised, centred vectors)
    from alternating Procrustes and stochastic CSLS dictionary induction in both directions,
    starting from ``seed_pairs`` (default: ``initial_dictionary``). The objective is the mean
    best (dropped-out, CSLS-adjusted) similarity of both directions; after ``patience``
    iterations without an improvement above ``threshold`` the keep probability doubles, and
    at 1 the loop stops. ``settings.history`` keeps the objective, ``settings.seed_dictionary``
    the starting pairs (their precision says whether the initialisation had anything to build on).
    ``progress``: a bar on stderr (iterations, the objective and the keep probability)."""
    from tqdm.auto import tqdm

    cfg = settings or SelfLearning()
    xs, ys = _prepare(x), _prepare(y)
    src, tgt = seed_pairs if seed_pairs is not None else \
        initial_dictionary(x, y, cfg.csls_k, cfg.init)
    cfg.seed_dictionary = (src.clone(), tgt.clone())
    gen = torch.Generator().manual_seed(cfg.seed)
    p, best, stale = cfg.keep_prob, -float("inf"), 0
    w = torch.eye(xs.shape[1], dtype=torch.float64)
    bar = tqdm(total=cfg.max_iterations, desc="self-learning", unit="it", leave=False,
               disable=not progress)
    for _ in range(cfg.max_iterations):
        w = procrustes(xs[src].T @ ys[tgt])
        mapped = xs @ w
        r_y = mean_topk_cosine(ys, mapped, cfg.csls_k)   # target rows' hubness among sources
        r_x = mean_topk_cosine(mapped, ys, cfg.csls_k)
        fwd, fv = induce(mapped, ys, r_y, p, gen)
        bwd, bv = induce(ys, mapped, r_x, p, gen)
        objective = float((fv.mean() + bv.mean()) / 2)
        cfg.history.append(objective)
        bar.update()
        bar.set_postfix(objective=f"{objective:.4f}", keep=f"{p:.2f}", refresh=False)
        if objective - best > cfg.threshold:
            best, stale = objective, 0
        else:
            stale += 1
            if stale >= cfg.patience:
                if p >= 1.0:
                    break
                p, stale = min(1.0, 2 * p), 0
        src = torch.cat([torch.arange(len(xs)), bwd])
        tgt = torch.cat([fwd, torch.arange(len(ys))])
    bar.close()
    return w
