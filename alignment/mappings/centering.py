"""Per-language standardisation: centring (mean removal) and NORM (mean and variance)."""
from __future__ import annotations

import torch

from .moments import PairMoments
from .affine import Affine, AffineMapping


class Center(AffineMapping):
    """Subtract each language's mean vector (over its aligned words)."""

    kind = "center"

    def solve(self, moments: PairMoments) -> Affine:
        eye = torch.eye(moments.dim, dtype=torch.float64)
        return eye, -moments.mean_x(), eye.clone(), -moments.mean_y()


class Norm(AffineMapping):
    """NORM (Zhao et al. 2021): zero mean, unit variance per dimension and language, with the
    statistics taken over the whole training corpus rather than one batch."""

    kind = "norm"

    def __init__(self, dim: int, eps: float = 1e-8) -> None:
        super().__init__(dim)
        self.eps = eps

    def config(self) -> dict:
        return {"dim": self.dim, "eps": self.eps}

    def solve(self, moments: PairMoments) -> Affine:
        sx = torch.sqrt(moments.var_x().clamp_min(0) + self.eps)
        sy = torch.sqrt(moments.var_y().clamp_min(0) + self.eps)
        return (torch.diag(1 / sx), -moments.mean_x() / sx, torch.diag(1 / sy),
                -moments.mean_y() / sy)
