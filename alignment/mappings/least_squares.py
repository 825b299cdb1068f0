"""Least-squares linear map: the unconstrained affine baseline y ≈ xA + b."""
from __future__ import annotations

import torch

from .moments import PairMoments
from .affine import Affine, AffineMapping


class LeastSquares(AffineMapping):
    """Ridge-regularised least squares (ridge = ``ridge`` × mean feature variance), source only."""

    kind = "linear"

    def __init__(self, dim: int, ridge: float = 1e-6) -> None:
        super().__init__(dim)
        self.ridge = ridge

    def config(self) -> dict:
        return {"dim": self.dim, "ridge": self.ridge}

    def solve(self, moments: PairMoments) -> Affine:
        n, mx, my = moments.n, moments.mean_x(), moments.mean_y()
        cxx = moments.sxx / n - torch.outer(mx, mx)
        cxy = moments.sxy / n - torch.outer(mx, my)
        eye = torch.eye(moments.dim, dtype=torch.float64)
        lam = self.ridge * torch.diagonal(cxx).mean().clamp_min(1e-12)
        a = torch.linalg.solve(cxx + lam * eye, cxy)
        return a, my - mx @ a, eye, torch.zeros(moments.dim, dtype=torch.float64)
