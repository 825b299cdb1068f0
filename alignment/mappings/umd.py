"""UMD (GBDD): remove the dominant direction of the translation-pair differences from both sides."""
from __future__ import annotations

import torch

from .moments import PairMoments
from .affine import Affine, AffineMapping


def top_direction(scatter: torch.Tensor) -> torch.Tensor:
    """Unit top eigenvector of a symmetric d×d scatter matrix, with a deterministic sign
    (its largest-magnitude entry positive)."""
    _, vecs = torch.linalg.eigh(scatter.to(torch.float64))
    v = vecs[:, -1]
    if v[v.abs().argmax()] < 0:
        v = -v
    return v / v.norm()


class UMD(AffineMapping):
    """Universal language mismatch direction (Zhao et al. 2020): e ↦ e − (e·v)v on both sides,
    v = top right singular vector of the differences X − Y."""

    kind = "umd"

    def solve(self, moments: PairMoments) -> Affine:
        v = top_direction(moments.difference_scatter())
        proj = torch.eye(moments.dim, dtype=torch.float64) - torch.outer(v, v)
        zero = torch.zeros(moments.dim, dtype=torch.float64)
        return proj, zero, proj.clone(), zero.clone()

    @property
    def direction(self) -> torch.Tensor:
        """The removed unit direction v (recovered from the projection I − vvᵀ)."""
        return top_direction(torch.eye(self.dim, dtype=torch.float64) - self.src_weight)
