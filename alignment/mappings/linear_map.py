"""A learned linear map x ↦ xW (source side only), for methods that find W without pair
moments: adversarial training (MUSE), self-learning (VecMap), self-trained Procrustes."""
from __future__ import annotations

import torch
from torch import nn

from .affine import AffineMapping
from .base import Mapping


class LinearMap(Mapping):
    """x ↦ xW with W a trainable d × d matrix (the identity at the start). ``orthogonalise``
    is MUSE's update W ← (1 + β)W − β(WWᵀ)W, which keeps W close to orthogonal."""

    kind = "linear_map"

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.weight = nn.Parameter(torch.eye(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(self.weight.dtype) @ self.weight

    def set_weight(self, w: torch.Tensor) -> "LinearMap":
        with torch.no_grad():
            self.weight.copy_(w.to(self.weight.dtype))
        return self

    def orthogonalise(self, beta: float = 0.01) -> None:
        with torch.no_grad():
            w = self.weight
            w.copy_((1 + beta) * w - beta * (w @ w.T) @ w)

    def orthogonality_error(self) -> float:
        """‖WᵀW − I‖ (Frobenius): 0 for an orthogonal W."""
        w = self.weight.detach().double()
        return float((w.T @ w - torch.eye(self.dim, dtype=torch.float64)).norm())


class LinearStage(AffineMapping):
    """A learned linear map x ↦ xW held fixed as an affine stage (source side only): how a
    linear adversarial start sits among the closed-form stages before the flow trained after
    it, so that the saved map, its name and its fingerprint include it."""

    kind = "linear_stage"

    def describe(self) -> str:
        return "linear_start"

    def set_weight(self, w: torch.Tensor) -> "LinearStage":
        """W on the source side; the bias and the target side stay as built (0, identity)."""
        with torch.no_grad():
            self.src_weight.copy_(w.detach().to(torch.float64))
        return self
