"""Self-training's refit as published (Zhao & Eger 2022, Algorithm 1): GAN-Real-NVP's
adversarial objective on the two monolingual pools, plus the constraint g on the round's
induced pairs — the map keeps matching the distributions while g pulls the induced pairs
together."""
from __future__ import annotations

import torch

from alignment.mappings import MethodSpec
from alignment.mappings.staged import through_pre_stages
from alignment.unsupervised.constraints import get_constraint

from .adversarial import GanRealNVPFit


class ConstrainedGanFit(GanRealNVPFit):
    """``GanRealNVPFit`` whose map loss adds ``constraint_weight`` × g(f(x̂), ŷ) on
    ``constraint_batch`` induced pairs (x̂, ŷ) drawn each map step (``set_induced``); the
    map is first stepped after ``critic_warmup`` critic updates, so a fresh critic learns
    what separates the pools before its gradient moves a map that is already trained. Every
    other setting is ``GanRealNVPFit``'s."""

    def __init__(self, method: str | MethodSpec = "gan_realnvp",
                 constraint: str = "cross_correlation", constraint_weight: float = 1.0, constraint_batch: int = 512,
                 critic_warmup: int = 100, seed: int = 0, **gan_settings) -> None:
        g = get_constraint(constraint)  # an unknown name fails before any data is read
        super().__init__(method, **{**gan_settings, "linear_steps": 0})
        self._constraint = g
        self.hparams.update(linear_steps=0,  # it continues a trained map: no second start
                            constraint=constraint, constraint_weight=constraint_weight,
                            constraint_batch=constraint_batch, critic_warmup=critic_warmup,
                            seed=seed)
        self.critic_warmup = critic_warmup
        self.induced: tuple[torch.Tensor, torch.Tensor] | None = None

    def set_induced(self, x: torch.Tensor, y: torch.Tensor) -> None:
        """The round's induced pairs (row-aligned source and target rows, before any stages)."""
        if len(x) != len(y) or len(x) == 0:
            raise ValueError(f"induced pairs must be row-aligned and non-empty, got {len(x)} "
                             f"and {len(y)} rows")
        self.induced = (x.float(), y.float())

    def _generator(self, stream: int, step: int) -> torch.Generator:
        """A generator for draw ``stream`` (0: penalty, 1: induced pairs) at ``step``."""
        return torch.Generator().manual_seed((2 * self.hparams.seed + stream) * 1_000_003 + step)

    def step_generator(self) -> torch.Generator:
        """The gradient penalty's draws, seeded with (seed, critic update): a run resumed from
        a checkpoint draws what the uninterrupted one would."""
        return self._generator(0, self._critic_updates(0))

    def _induced_batch(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A batch of induced pairs drawn by a generator seeded with (seed, map step), for the
        same reason."""
        x, y = self.induced
        gen = self._generator(1, self.map_updates)
        pick = torch.randint(len(x), (min(self.hparams.constraint_batch, len(x)),), generator=gen)
        return x[pick].to(self.device), y[pick].to(self.device)

    def map_extra(self, x: torch.Tensor, y: torch.Tensor
                  ) -> dict[str, tuple[float, torch.Tensor]]:
        out = super().map_extra(x, y)
        if self.induced is None:
            raise RuntimeError("ConstrainedGanFit needs the round's induced pairs: call "
                               "set_induced before fitting")
        xi, yi = through_pre_stages(self.mapping, *self._induced_batch())
        out["constraint"] = (self.hparams.constraint_weight, self._constraint(self.trainable(xi), yi))
        return out
