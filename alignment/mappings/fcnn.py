"""FCNN baseline (Zhao & Eger 2022's table): three fully connected layers with tanh."""
from __future__ import annotations

import torch
from torch import nn

from .base import Mapping, weighted_mean


class FCNN(Mapping):
    """x ↦ W3 tanh(W2 tanh(W1 x)). No tanh after the output layer: it would clip the target
    range to (−1, 1), which contextual vectors leave.

    ``residual``: x ↦ x + g(x) with the output layer of g started at zero, so the map starts
    as the identity — on top of closed-form stages (``center > clp > fcnn``) it starts exactly
    at the linear map and learns only a correction."""

    kind = "fcnn"

    def __init__(self, dim: int, hidden: int = 1024, residual: bool = False) -> None:
        super().__init__(dim)
        self.hidden, self.residual = hidden, residual
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                                 nn.Tanh(), nn.Linear(hidden, dim))
        if residual:
            nn.init.zeros_(self.net[-1].weight)
            nn.init.zeros_(self.net[-1].bias)

    def config(self) -> dict:
        cfg = {"dim": self.dim, "hidden": self.hidden}
        if self.residual:  # (absent from older saved configs, which were not residual)
            cfg["residual"] = True
        return cfg

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.net(x) if self.residual else self.net(x)


def regression_loss(mapping: Mapping, x: torch.Tensor, y: torch.Tensor,
                    weight: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """Squared error ‖f(x) − y‖², summed over dimensions, mean over pairs."""
    mse = weighted_mean(((mapping(x) - y) ** 2).sum(1), weight)
    return {"mse": mse, "loss": mse}
