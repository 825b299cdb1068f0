"""CLP: orthogonal Procrustes, W = UVᵀ from SVD(XᵀY); only the source side moves."""
from __future__ import annotations

import torch

from .moments import PairMoments
from .affine import Affine, AffineMapping


def procrustes(cross: torch.Tensor) -> torch.Tensor:
    """The orthogonal W minimising ‖XW − Y‖ given the cross-product matrix XᵀY."""
    u, _, vh = torch.linalg.svd(cross.to(torch.float64))
    return u @ vh


class CLP(AffineMapping):
    """Cross-lingual projection (Zhao et al. 2020): x ↦ xW with W orthogonal."""

    kind = "clp"

    def solve(self, moments: PairMoments) -> Affine:
        eye = torch.eye(moments.dim, dtype=torch.float64)
        zero = torch.zeros(moments.dim, dtype=torch.float64)
        return procrustes(moments.sxy), zero, eye, zero.clone()

    @property
    def weight(self) -> torch.Tensor:
        return self.src_weight
