"""Validation criteria for model selection without labelled data (Zhao & Eger 2022)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from .csls import induce_pairs, nearest, normalize


def semantic_criterion(mapped_src: torch.Tensor, tgt: torch.Tensor, top: int = 1000,
                       k: int = 10, mutual: bool = False) -> float:
    """Mean cosine of the ``top`` most confident CSLS-induced translation pairs between the
    mapped source pool and the target pool (no pairing used; ``mutual``: mutual nearest
    neighbours only). Higher is better."""
    q, key, _ = induce_pairs(mapped_src, tgt, "csls", k, mutual)
    q, key = q[:top], key[:top]
    if not len(q):
        return 0.0
    return float((normalize(mapped_src[q].float()) * normalize(tgt[key].float())).sum(1).mean())


def singular_spectrum(v: torch.Tensor) -> torch.Tensor:
    """Singular values of the centred vectors, sorted descending, scaled by 1/sqrt(n)."""
    v = v.double() - v.double().mean(0)
    return torch.linalg.svdvals(v) / v.shape[0] ** 0.5


def structural_criterion(mapped_src: torch.Tensor, tgt: torch.Tensor) -> float:
    """Distance between the sorted singular-value spectra of the two sides, relative to the
    target's; lower is better (0 for identical spectra)."""
    a, b = singular_spectrum(mapped_src), singular_spectrum(tgt)
    n = min(len(a), len(b))
    return float((a[:n] - b[:n]).norm() / b[:n].norm().clamp_min(1e-12))


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


CRITERIA: dict[str, Criterion] = {c.name: c for c in (
    Criterion("semantic", semantic_criterion, "max", False,
              "mean cosine of the most confident CSLS-induced pairs"),
    Criterion("structural", structural_criterion, "min", False,
              "distance between the two sides' singular-value spectra"),
    Criterion("val_p1", paired_p1, "max", True,
              "P@1 of retrieving each held-out pair's target (needs labels)"),
)}
