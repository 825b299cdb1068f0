"""Critics and discriminators for adversarial alignment: a network that tells target vectors
Y from mapped source vectors f(X), which the map then learns to fool."""
from __future__ import annotations

import torch
from torch import nn

from alignment.catalogue import check_choice

LIPSCHITZ = ("penalty", "one_sided", "spectral", "none")


class Critic(nn.Module):
    """An MLP scoring vectors (one real number each): ``hidden`` units × ``layers``, LeakyReLU
    (0.2), optional input dropout (MUSE uses 0.1).

    ``lipschitz`` keeps it (about) 1-Lipschitz, as a Wasserstein critic must be:
    ``"penalty"`` (the default) leaves the layers free and relies on the gradient penalty of
    ``gradient_penalty`` in the loss (``"one_sided"``: its one-sided form, which lets the critic
    go flat where the samples match) — it constrains the critic only where it matters (between
    the two samples) and does not shrink its capacity; ``"spectral"`` normalises each weight
    matrix to spectral norm 1 (a hard bound, 1-Lipschitz overall since LeakyReLU is too; in the
    CBLI simulation it is the one with which GAN-Real-NVP finds the words, docs/unsupervised.md);
    ``"none"`` for a standard GAN discriminator (MUSE)."""

    def __init__(self, dim: int, hidden: int = 1024, layers: int = 2, dropout: float = 0.0,
                 lipschitz: str = "penalty") -> None:
        super().__init__()
        check_choice(lipschitz, LIPSCHITZ, "Lipschitz mode", "lipschitz")
        self.lipschitz = lipschitz
        blocks: list[nn.Module] = [nn.Dropout(dropout)] if dropout > 0 else []
        width = dim
        for _ in range(layers):
            blocks += [self._linear(width, hidden), nn.LeakyReLU(0.2)]
            width = hidden
        blocks.append(self._linear(width, 1))
        self.net = nn.Sequential(*blocks)

    def _linear(self, n_in: int, n_out: int) -> nn.Module:
        layer = nn.Linear(n_in, n_out)
        if self.lipschitz == "spectral":
            return nn.utils.parametrizations.spectral_norm(layer)
        return layer

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        return self.net(v).squeeze(-1)


def gradient_penalty(critic: nn.Module, real: torch.Tensor, fake: torch.Tensor,
                     generator: torch.Generator | None = None,
                     one_sided: bool = False) -> torch.Tensor:
    """WGAN-GP (Gulrajani et al. 2017): E[(‖∇h(v̂)‖ − 1)²] at random interpolates v̂ between
    real and fake rows (paired by position; the shorter sample sets the count). ``one_sided``:
    E[max(0, ‖∇h(v̂)‖ − 1)²] (Petzka et al. 2018), which only penalises slopes above 1."""
    n = min(len(real), len(fake))
    alpha = torch.rand(n, 1, generator=generator, dtype=real.dtype).to(real.device)
    mixed = (alpha * real[:n].detach() + (1 - alpha) * fake[:n].detach()).requires_grad_(True)
    grad, = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    excess = grad.norm(dim=1) - 1
    return ((excess.clamp(min=0) if one_sided else excess) ** 2).mean()


def interpolate_gradient_norms(critic: nn.Module, real: torch.Tensor, fake: torch.Tensor,
                               seed: int = 0) -> torch.Tensor:
    """‖∇h‖ at random interpolates (what the penalty drives to 1), for checks and logs."""
    n = min(len(real), len(fake))
    alpha = torch.rand(n, 1, generator=torch.Generator().manual_seed(seed), dtype=real.dtype)
    mixed = (alpha * real[:n] + (1 - alpha) * fake[:n]).detach().requires_grad_(True)
    grad, = torch.autograd.grad(critic(mixed).sum(), mixed)
    return grad.norm(dim=1)


def spectral_norms(critic: Critic) -> list[float]:
    """The largest singular value of each linear layer's effective weight."""
    return [float(torch.linalg.matrix_norm(m.weight.detach(), ord=2))
            for m in critic.modules() if isinstance(m, nn.Linear)]
