"""VecMap-style unsupervised mapping (Artetxe et al. 2018), for static vectors: an initial
dictionary from matching similarity distributions, then self-learning (orthogonal map ↔
CSLS dictionary with stochastic dictionary induction). For contextual encoders we run it on
per-type centroids of the most frequent types (see ``MonolingualPool.centroids``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from alignment.evaluation.csls import normalize, nearest
from alignment.mappings.procrustes import procrustes


def _prepare(v: torch.Tensor) -> torch.Tensor:
    """Length-normalise, centre, length-normalise again (what the similarity-distribution
    initialisation needs to be meaningful)."""
    v = normalize(v.double())
    return normalize(v - v.mean(0))


def similarity_signatures(v: torch.Tensor, sqrt: bool = True) -> torch.Tensor:
    """Each row's sorted similarity distribution (rows of sqrt(VVᵀ) sorted, then normalised):
    language-independent up to isometry, so rows of two languages can be compared."""
    sims = v @ v.T
    if sqrt:
        sims = sims.sign() * sims.abs().sqrt()
    return normalize(sims.sort(dim=1, descending=True).values)


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
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
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
    patience: int = 3               # iterations without improvement before p doubles
    threshold: float = 1e-6         # improvement that counts
    max_iterations: int = 100
    init: str = "similarity"
    seed: int = 0
    history: list[float] = field(default_factory=list)


def self_learning(x: torch.Tensor, y: torch.Tensor, settings: SelfLearning | None = None,
                  seed_pairs: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
    """The orthogonal W (source → target, applied as x W to length-normalised, centred vectors)
    from alternating Procrustes and CSLS dictionary induction in both directions, starting from
    ``seed_pairs`` (default: ``initial_dictionary``). Stops when p has reached 1 and the mean
    CSLS similarity of the dictionary no longer improves; ``settings.history`` keeps it."""
    cfg = settings or SelfLearning()
    xs, ys = _prepare(x), _prepare(y)
    src, tgt = seed_pairs if seed_pairs is not None else \
        initial_dictionary(x, y, cfg.csls_k, cfg.init)
    gen = torch.Generator().manual_seed(cfg.seed)
    p, best, stale = cfg.keep_prob, -float("inf"), 0
    w = torch.eye(xs.shape[1], dtype=torch.float64)
    for _ in range(cfg.max_iterations):
        w = procrustes(xs[src].T @ ys[tgt])
        mapped = xs @ w
        fwd, fv = nearest(mapped, ys, "csls", cfg.csls_k)
        bwd, bv = nearest(ys, mapped, "csls", cfg.csls_k)
        objective = float(torch.cat([fv[:, 0], bv[:, 0]]).mean())
        cfg.history.append(objective)
        if objective - best > cfg.threshold:
            best, stale = objective, 0
        else:
            stale += 1
            if stale >= cfg.patience:
                if p >= 1.0:
                    break
                p, stale = min(1.0, 2 * p), 0
        src, tgt = torch.cat([torch.arange(len(xs)), bwd[:, 0]]), \
            torch.cat([fwd[:, 0], torch.arange(len(ys))])
        keep = torch.rand(len(src), generator=gen) < p
        src, tgt = src[keep], tgt[keep]
    return w
