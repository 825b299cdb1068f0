"""Real-NVP density matching (Zhao & Eger 2022): an invertible map X → Y through a shared
Gaussian latent, f = f_{Z→Y} ∘ f_{X→Z}, each an affine-coupling flow (zuko's RealNVP)."""
from __future__ import annotations


import torch

from ..moments import PairStatistics
from .base import Mapping, weighted_mean


class RealNVPMapping(Mapping):
    """Two Real-NVP flows, one per language, into the same standard-normal latent.

    ``forward`` maps source vectors to the target space (x → z → y), ``inverse`` the other way.
    ``log_prob_x`` / ``log_prob_y`` are the exact data log-likelihoods by change of variables
    (the density-modelling term); inputs are standardised by fixed per-language statistics
    so the Gaussian latent fits whatever scale the encoder has."""

    kind = "realnvp"

    def __init__(self, dim: int, transforms: int = 4, hidden: int = 256, layers: int = 2) -> None:
        super().__init__(dim)
        import zuko

        self.transforms, self.hidden, self.layers = transforms, hidden, layers
        kwargs = dict(features=dim, transforms=transforms, hidden_features=[hidden] * layers)
        self.flow_x = zuko.flows.RealNVP(**kwargs)
        self.flow_y = zuko.flows.RealNVP(**kwargs)
        for name in ("mean_x", "std_x", "mean_y", "std_y"):
            self.register_buffer(name, torch.zeros(dim) if "mean" in name else torch.ones(dim))

    def config(self) -> dict:
        return {"dim": self.dim, "transforms": self.transforms, "hidden": self.hidden,
                "layers": self.layers}

    def standardise_with(self, stats: PairStatistics, shared: bool = False) -> None:
        """Fix the per-language input standardisation from training data (before training);
        ``shared``: one standardisation for both languages (their pooled moments), so that
        identity flows make the whole map the identity (see ``start_as_identity``)."""
        mx, sx, my, sy = stats.mean_x, stats.std_x, stats.mean_y, stats.std_y
        if shared:
            mean = (mx + my) / 2
            second = (sx ** 2 + mx ** 2 + sy ** 2 + my ** 2) / 2  # pooled E[v²] per dimension
            std = (second - mean ** 2).clamp_min(0).sqrt()
            mx, sx, my, sy = mean, std, mean, std
        self.mean_x.copy_(mx)
        self.std_x.copy_(sx.clamp_min(1e-6))
        self.mean_y.copy_(my)
        self.std_y.copy_(sy.clamp_min(1e-6))

    def start_as_identity(self) -> None:
        """Zero the output layer of every coupling network: each coupling, both flows, and
        (with a shared standardisation) the whole map x → y start as the identity, so training
        on top of closed-form stages starts exactly at them."""
        for module in self.modules():
            if type(module).__name__ == "GeneralCouplingTransform":
                last = module.hyper[-1]
                with torch.no_grad():
                    last.weight.zero_()
                    last.bias.zero_()

    def to_latent_x(self, x: torch.Tensor) -> torch.Tensor:
        return self.flow_x().transform((x - self.mean_x) / self.std_x)

    def to_latent_y(self, y: torch.Tensor) -> torch.Tensor:
        return self.flow_y().transform((y - self.mean_y) / self.std_y)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.flow_y().transform.inv(self.to_latent_x(x)) * self.std_y + self.mean_y

    def inverse(self, y: torch.Tensor) -> torch.Tensor:
        return self.flow_x().transform.inv(self.to_latent_y(y)) * self.std_x + self.mean_x

    def _log_prob(self, flow, v: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
        return flow().log_prob((v - mean) / std) - torch.log(std).sum()

    def log_prob_x(self, x: torch.Tensor) -> torch.Tensor:
        return self._log_prob(self.flow_x, x, self.mean_x, self.std_x)

    def log_prob_y(self, y: torch.Tensor) -> torch.Tensor:
        return self._log_prob(self.flow_y, y, self.mean_y, self.std_y)

    def log_abs_det(self, x: torch.Tensor) -> torch.Tensor:
        """log |det ∂f/∂x| of the full source→target map, per row."""
        xs = (x - self.mean_x) / self.std_x
        tx = self.flow_x().transform
        z = tx(xs)
        ty = self.flow_y().transform
        ys = ty.inv(z)
        return (tx.log_abs_det_jacobian(xs, z) - ty.log_abs_det_jacobian(ys, z)
                - torch.log(self.std_x).sum() + torch.log(self.std_y).sum())


def density_matching_loss(mapping: RealNVPMapping, x: torch.Tensor, y: torch.Tensor,
                          weight: torch.Tensor | None = None, dual: bool = True,
                          nll_weight: float = 0.1) -> dict[str, torch.Tensor]:
    """Zhao & Eger 2022's objective: density matching ‖f(x) − y‖² (summed over dimensions, mean
    over pairs), with ``dual`` also ‖f⁻¹(y) − x‖², plus ``nll_weight`` × the negative
    log-likelihood of x and y under their flows in nats per dimension (density modelling)."""
    out = {"mse": weighted_mean(((mapping(x) - y) ** 2).sum(1), weight)}
    if dual:
        out["mse_inverse"] = weighted_mean(((mapping.inverse(y) - x) ** 2).sum(1), weight)
    out["nll"] = -weighted_mean(mapping.log_prob_x(x) + mapping.log_prob_y(y), weight) / (2 * x.shape[1])
    out["loss"] = out["mse"] + out.get("mse_inverse", 0.0) + nll_weight * out["nll"]
    return out
