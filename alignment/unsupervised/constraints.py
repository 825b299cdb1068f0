"""The constraints g of self-training (Zhao & Eger 2022, Algorithm 1): extra losses on induced
pairs (mapped source Ỹ, target Y, row-aligned) that keep a refitted map from distorting the
space; each is 0 at a planted solution and > 0 away from it."""
from __future__ import annotations

from typing import Callable

import torch

from alignment.catalogue import Registry


def cross_correlation(mapped: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    """‖diag(ỸᵀY) / (‖Ỹ_col‖ ‖Y_col‖) − 1‖² on de-meaned columns: every dimension of the
    mapped vectors should correlate perfectly with the same dimension of their partners
    (0 exactly when each column of Ỹ is a positive multiple of Y's, after centring).
    Averaged over dimensions so the weight does not depend on d."""
    a = mapped - mapped.mean(0)
    b = tgt - tgt.mean(0)
    corr = (a * b).sum(0) / (a.norm(dim=0) * b.norm(dim=0)).clamp_min(1e-12)
    return ((corr - 1) ** 2).mean()


def graph_structure(mapped: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    """‖ỸỸᵀ − YYᵀ‖² per entry: the two sides' Gram matrices (graphs of pairwise similarities)
    agree; 0 when Ỹ = YR for any orthogonal R. Mean over the n² entries."""
    return ((mapped @ mapped.T - tgt @ tgt.T) ** 2).mean()


def procrustes_residual(mapped: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    """min_R ‖ỸR − Y‖² over orthogonal R (the Procrustes refinement as a loss), per pair:
    0 when the mapped vectors equal the targets up to a rotation. R is solved exactly on the
    batch and held fixed in the gradient (the envelope theorem makes that the true gradient)."""
    with torch.no_grad():
        u, _, vh = torch.linalg.svd(mapped.T.double() @ tgt.double())
        rotation = (u @ vh).to(mapped.dtype)
    return ((mapped @ rotation - tgt) ** 2).sum(1).mean()


CONSTRAINTS: Registry[Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = Registry.of(
    "constraint", {"cross_correlation": cross_correlation, "graph": graph_structure,
                   "procrustes": procrustes_residual})


def get_constraint(name: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    return CONSTRAINTS.lookup(name)
