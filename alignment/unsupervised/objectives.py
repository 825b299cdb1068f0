"""Adversarial objectives: what a critic minimises to tell target vectors from mapped source
vectors, and what the map minimises to fool it. Chosen by name (``OBJECTIVES``)."""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from alignment.catalogue import Registry
from .critic import gradient_penalty


@dataclass(frozen=True)
class Wasserstein:
    """WGAN (Arjovsky et al. 2017): critic loss E[h(f(x))] − E[h(y)], with ``lipschitz ==
    "penalty"`` plus ``gp_weight`` × the gradient penalty (WGAN-GP; ``"one_sided"``: its
    one-sided form); map loss −E[h(f(x))]."""

    lipschitz: str = "penalty"
    gp_weight: float = 10.0

    @classmethod
    def from_settings(cls, lipschitz: str, gp_weight: float, label_smoothing: float) -> Wasserstein:
        return cls(lipschitz, gp_weight)

    @property
    def critic_lipschitz(self) -> str:
        return self.lipschitz

    def critic_loss(self, critic: nn.Module, real: torch.Tensor, fake: torch.Tensor,
                    generator: torch.Generator | None = None) -> dict[str, torch.Tensor]:
        """``generator``: draws the penalty's interpolates (default: the global RNG)."""
        out = {"critic_gap": critic(real).mean() - critic(fake).mean()}
        out["critic_loss"] = -out["critic_gap"]
        if self.lipschitz in ("penalty", "one_sided"):
            out["gradient_penalty"] = gradient_penalty(critic, real, fake, generator,
                                                       one_sided=self.lipschitz == "one_sided")
            out["critic_loss"] = out["critic_loss"] + self.gp_weight * out["gradient_penalty"]
        return out

    def map_loss(self, h_fake: torch.Tensor) -> torch.Tensor:
        return -h_fake.mean()


@dataclass(frozen=True)
class StandardGAN:
    """The original GAN as MUSE uses it (Conneau et al. 2018): binary cross-entropy with
    ``label_smoothing``, the map trained with flipped labels; the discriminator unconstrained."""

    label_smoothing: float = 0.2

    @classmethod
    def from_settings(cls, lipschitz: str, gp_weight: float, label_smoothing: float) -> StandardGAN:
        return cls(label_smoothing)

    @property
    def critic_lipschitz(self) -> str:
        return "none"

    def critic_loss(self, critic: nn.Module, real: torch.Tensor, fake: torch.Tensor,
                    generator: torch.Generator | None = None) -> dict[str, torch.Tensor]:
        s = self.label_smoothing  # deterministic given its inputs: no generator needed
        h_real, h_fake = critic(real), critic(fake)
        logits = torch.cat([h_real, h_fake])
        labels = torch.cat([torch.full_like(h_real, 1 - s), torch.full_like(h_fake, s)])
        return {"critic_loss": F.binary_cross_entropy_with_logits(logits, labels)}

    def map_loss(self, h_fake: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(
            h_fake, torch.full_like(h_fake, 1 - self.label_smoothing))


OBJECTIVES = Registry.of("objective", {"wgan": Wasserstein, "gan": StandardGAN})


def make_objective(name: str, lipschitz: str, gp_weight: float, label_smoothing: float):
    """The objective ``name``, taking the settings it uses."""
    return OBJECTIVES.lookup(name).from_settings(lipschitz, gp_weight, label_smoothing)
