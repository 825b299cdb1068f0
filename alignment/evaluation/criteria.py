"""Validation criteria for model selection without labelled data (Zhao & Eger 2022)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from alignment.catalogue import Registry
from .csls import induce_pairs, nearest, normalize


def resolve_top(top: int | float, pool: int) -> int:
    """How many induced pairs a criterion uses: ``top`` itself when >= 1, else that share of
    the pool (the paper takes the 30k most confident of its pool; a share scales with it)."""
    if top <= 0:
        raise ValueError(f"top must be > 0, got {top}")
    return int(top) if top >= 1 else max(1, int(round(top * pool)))


def semantic_criterion(mapped_src: torch.Tensor, tgt: torch.Tensor, top: int | float = 1000,
                       k: int = 10, mutual: bool = False) -> float:
    """Mean cosine of the ``top`` most confident CSLS-induced translation pairs between the
    mapped source pool and the target pool (no pairing used; ``mutual``: mutual nearest
    neighbours only; ``top`` < 1: a share of the pool). Higher is better."""
    q, key, _ = induce_pairs(mapped_src, tgt, "csls", k, mutual)
    n = resolve_top(top, len(mapped_src))
    q, key = q[:n], key[:n]
    if not len(q):
        return 0.0
    return float((normalize(mapped_src[q].float()) * normalize(tgt[key].float())).sum(1).mean())


def singular_spectrum(v: torch.Tensor) -> torch.Tensor:
    """Singular values of the centred vectors, sorted descending, scaled by 1/sqrt(n)."""
    v = v.double() - v.double().mean(0)
    return torch.linalg.svdvals(v) / v.shape[0] ** 0.5


LOG_FLOOR = 1e-6
"""Singular values below this share of the target's largest count as this share: constant
dimensions (σ ≈ 1e-30 on both sides) would otherwise dominate the sum of log differences."""


def structural_criterion(mapped_src: torch.Tensor, tgt: torch.Tensor, top: int | float = 1000,
                         k: int = 10, mutual: bool = False) -> float:
    """The published spectral criterion (Dubossarsky et al. 2020, used by Zhao & Eger 2022):
    Σᵢ (log σᵢ − log σ'ᵢ)² between the singular values of the (centred) mapped source and target
    vectors of the ``top`` most confident CSLS-induced pairs. Lower is better (0: same spectra)."""
    q, key, _ = induce_pairs(mapped_src, tgt, "csls", k, mutual)
    n = resolve_top(top, len(mapped_src))
    q, key = q[:n], key[:n]
    if len(q) < 2:
        return float("inf")
    a, b = singular_spectrum(mapped_src[q]), singular_spectrum(tgt[key])
    m = min(len(a), len(b))
    floor = (LOG_FLOOR * b[0]).clamp_min(1e-300)
    return float(((a[:m].clamp_min(floor).log() - b[:m].clamp_min(floor).log()) ** 2).sum())


def spectrum_distance(mapped_src: torch.Tensor, tgt: torch.Tensor) -> float:
    """crossalign 0.1's structural criterion: distance between the raw sorted singular-value
    spectra of all validation vectors, relative to the target's (the top values dominate it);
    lower is better. Kept as a named alternative."""
    a, b = singular_spectrum(mapped_src), singular_spectrum(tgt)
    n = min(len(a), len(b))
    return float((a[:n] - b[:n]).norm() / b[:n].norm().clamp_min(1e-12))


def mmd(mapped_src: torch.Tensor, tgt: torch.Tensor, sample: int = 1000) -> float:
    """Squared maximum mean discrepancy between the mapped source and the target distributions
    (Gaussian kernel, bandwidth by the median heuristic on the pooled sample; unbiased
    estimate, so ~0 or slightly below when they match): what an adversarial map optimises,
    label-free; lower is better. At most ``sample`` rows a side, the same rows every call."""
    g = torch.Generator().manual_seed(0)
    a, b = (v.double()[torch.randperm(len(v), generator=g)[:sample].to(v.device)]
            for v in (mapped_src, tgt))
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    pooled = torch.cat([a, b])
    d2 = torch.cdist(pooled, pooled).pow(2)
    n = len(pooled)
    off = d2[~torch.eye(n, dtype=torch.bool, device=d2.device)]
    bandwidth = off.median().clamp_min(1e-12)
    k = torch.exp(-d2 / (2 * bandwidth))
    na = len(a)
    kaa, kbb, kab = k[:na, :na], k[na:, na:], k[:na, na:]
    within = lambda m: (m.sum() - m.diagonal().sum()) / (len(m) * (len(m) - 1))  # noqa: E731
    return float(within(kaa) + within(kbb) - 2 * kab.mean())


def paired_p1(mapped_src: torch.Tensor, tgt: torch.Tensor) -> float:
    """Labelled criterion: P@1 of retrieving each held-out pair's target (cosine)."""
    idx, _ = nearest(mapped_src, tgt, "cosine")
    return float((idx[:, 0].cpu() == torch.arange(len(tgt))).float().mean())


@dataclass(frozen=True)
class Criterion:
    """A model-selection criterion: how to compute it on (mapped source, target) vectors and
    which direction is better. ``labelled`` criteria need the true pairing."""

    name: str
    score: Callable[..., float]
    mode: str          # "max" or "min", as Lightning's ModelCheckpoint spells it
    labelled: bool
    doc: str


CRITERIA: Registry[Criterion] = Registry.of("criterion", {c.name: c for c in (
    Criterion("semantic", semantic_criterion, "max", False,
              "mean cosine of the most confident CSLS-induced pairs"),
    Criterion("structural", structural_criterion, "min", False,
              "squared log singular-value differences on the most confident CSLS-induced pairs "
              "(Dubossarsky et al. 2020)"),
    Criterion("spectrum", spectrum_distance, "min", False,
              "relative distance between the raw singular-value spectra (crossalign 0.1's "
              "structural criterion)"),
    Criterion("mmd", mmd, "min", False,
              "squared MMD between the mapped source and target distributions (Gaussian "
              "kernel, median heuristic): the distribution distance an adversarial map "
              "minimises"),
    Criterion("val_p1", paired_p1, "max", True,
              "P@1 of retrieving each held-out pair's target (needs labels)"),
)})


def score_criteria(mapped_src: torch.Tensor, tgt: torch.Tensor, top: int | float = 1000,
                   mutual: bool = False, labelled: bool = True) -> dict[str, float]:
    """Every criterion of ``CRITERIA`` on one validation pool (``top``/``mutual``: the induced
    pairs of the semantic and structural criteria); ``labelled=False``: only the label-free
    ones (unpaired pools)."""
    induced = {"top": top, "mutual": mutual}
    settings = {"semantic": induced, "structural": induced}
    return {name: c.score(mapped_src, tgt, **settings.get(name, {}))
            for name, c in CRITERIA.items() if labelled or not c.labelled}
