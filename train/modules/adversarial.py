"""Adversarial alignment without pairs: a critic separates target vectors Y from mapped source
vectors f(X) and the map learns to fool it. GAN-Real-NVP (Zhao & Eger 2022: a Wasserstein
critic, the flow also modelling both densities) and MUSE-style (Conneau et al. 2018: a
standard discriminator, a linear map kept orthogonal)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from alignment.unsupervised.critic import LIPSCHITZ, Critic, gradient_penalty
from alignment.errors import InputError
from alignment.mappings import Mapping, MethodSpec, RealNVPMapping
from alignment.mappings.flow import CONSTANT_REL_STD
from alignment.mappings.linear_map import LinearMap
from alignment.mappings.moments import PairStatistics
from alignment.mappings.staged import through_pre_stages

from .flow import build_flow
from .trained import TrainedFit

OBJECTIVES = ("wgan", "gan")
UNPAIRED_PRE_STAGES = {"identity", "center", "norm"}  # the stages that need no pairs


def check_unpaired(spec: MethodSpec, method):
    """Refuse closed-form stages that need pairs before an unsupervised method."""
    paired = [s for s in spec.pre_stages if s not in UNPAIRED_PRE_STAGES]
    if paired:
        raise InputError(f"'{spec.name}': '{paired[0]}' needs translation pairs; before an "
                         f"unsupervised method only {', '.join(sorted(UNPAIRED_PRE_STAGES))} "
                         "may come first", parameter="method")
    return method


class AdversarialFit(TrainedFit):
    """Fits ``gan_realnvp`` or ``muse`` on *unpaired* rows (``batch = (x, y)``, rows need not
    be translations; only per-language statistics are used, so only ``center`` / ``norm`` may
    come first).

    Each training step updates the critic; every ``critic_steps``-th step also updates the map.
    ``objective="wgan"``: critic loss E[h(f(x))] − E[h(y)] (+ ``gp_weight`` × gradient penalty
    with ``lipschitz="penalty"``), map loss −E[h(f(x))]; ``"gan"``: binary cross-entropy with
    ``label_smoothing``, the map trained with flipped labels. A Real-NVP map adds
    ``nll_weight`` × the negative log-likelihood per dimension of x and y under its flows
    (density modelling); a linear map is orthogonalised with ``orthogonalise`` (β) after each
    step. Validation logs label-free criteria only (the validation pools are unpaired)."""

    datamodule_class = "train.unpaired_datamodule.UnpairedVectorDataModule"  # rows unpaired
    paired_validation = False

    def __init__(self, method: str = "gan_realnvp", lr: float = 1e-4, critic_lr: float = 1e-4,
                 objective: str = "wgan", critic_steps: int = 5, gp_weight: float = 10.0,
                 lipschitz: str = "penalty", critic_hidden: int = 1024, critic_layers: int = 2,
                 critic_dropout: float = 0.0, label_smoothing: float = 0.2,
                 nll_weight: float = 0.1, transforms: int = 4, hidden: int = 256,
                 layers: int = 2, warm_start: bool = True, orthogonalise: float = 0.01,
                 constant_rel_std: float = CONSTANT_REL_STD, passive: list[int] | None = None,
                 semantic_top: float = 1000, semantic_mutual: bool = False,
                 dim: int | None = None) -> None:
        if objective not in OBJECTIVES:
            raise InputError(f"must be one of {OBJECTIVES}, got '{objective}'", parameter="objective")
        if lipschitz not in LIPSCHITZ:
            raise InputError(f"must be one of {LIPSCHITZ}, got '{lipschitz}'", parameter="lipschitz")
        if critic_steps < 1:
            raise InputError(f"must be >= 1, got {critic_steps}", parameter="critic_steps")
        if not 0 <= label_smoothing < 0.5:
            raise InputError(f"must be in [0, 0.5), got {label_smoothing}",
                             parameter="label_smoothing")
        super().__init__(method, lr, 0.0, semantic_top, semantic_mutual, dim)
        self.save_hyperparameters()
        self.automatic_optimization = False
        self.critic: Critic | None = None
        self._build_now(dim)

    def _check_method(self, spec: MethodSpec):
        return check_unpaired(spec, super()._check_method(spec))

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        mapping = LinearMap(dim) if self.method.mapping is LinearMap \
            else build_flow(dim, stats, self.hparams)
        self._build_critic(dim)
        return mapping

    def _build_critic(self, dim: int) -> None:
        hp = self.hparams
        self.critic = Critic(dim, hp.critic_hidden, hp.critic_layers, hp.critic_dropout,
                             hp.lipschitz if hp.objective == "wgan" else "none")

    def configure_model(self) -> None:
        super().configure_model()
        if self.critic is None:  # a mapping given from outside (bootstrapping, resume)
            self._build_critic(self.mapping.dim)

    def configure_optimizers(self):
        hp = self.hparams
        betas = (0.5, 0.9)  # the usual adversarial setting: little momentum
        return (torch.optim.Adam(self.trainable.parameters(), lr=hp.lr, betas=betas),
                torch.optim.Adam(self.critic.parameters(), lr=hp.critic_lr, betas=betas))

    def _inputs(self, batch) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = batch[0], batch[1]
        with torch.no_grad():
            return through_pre_stages(self.mapping, x, y)

    def critic_loss(self, real: torch.Tensor, fake: torch.Tensor) -> dict[str, torch.Tensor]:
        hp = self.hparams
        h_real, h_fake = self.critic(real), self.critic(fake)
        if hp.objective == "wgan":
            out = {"critic_gap": h_real.mean() - h_fake.mean()}
            out["critic_loss"] = -out["critic_gap"]
            if hp.lipschitz == "penalty":
                out["gradient_penalty"] = gradient_penalty(self.critic, real, fake)
                out["critic_loss"] = out["critic_loss"] + hp.gp_weight * out["gradient_penalty"]
            return out
        s = hp.label_smoothing
        logits = torch.cat([h_real, h_fake])
        labels = torch.cat([torch.full_like(h_real, 1 - s), torch.full_like(h_fake, s)])
        return {"critic_loss": F.binary_cross_entropy_with_logits(logits, labels)}

    def map_loss(self, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        hp = self.hparams
        mapped = self.trainable(x)
        h_fake = self.critic(mapped)
        if hp.objective == "wgan":
            out = {"map_adversarial": -h_fake.mean()}
        else:
            s = hp.label_smoothing
            out = {"map_adversarial": F.binary_cross_entropy_with_logits(
                h_fake, torch.full_like(h_fake, 1 - s))}
        out["map_loss"] = out["map_adversarial"]
        if isinstance(self.trainable, RealNVPMapping) and hp.nll_weight > 0:
            flow = self.trainable
            out["nll"] = -(flow.log_prob_x(x) + flow.log_prob_y(y)).mean() / (2 * len(flow.active_idx))
            out["map_loss"] = out["map_loss"] + hp.nll_weight * out["nll"]
        return out

    def _critic_updates(self, batch_idx: int) -> int:
        """Critic updates so far, this one included, counted over the whole run (Lightning's
        batch progress, kept in checkpoints): the map is stepped every ``critic_steps``-th
        update across epochs, not on a count that restarts each epoch (which gave a 400-row
        data set one map step per epoch)."""
        trainer = self._trainer
        if trainer is None:
            return batch_idx + 1
        return trainer.fit_loop.epoch_loop.batch_progress.total.ready

    def training_step(self, batch, batch_idx: int) -> None:
        opt_map, opt_critic = self.optimizers()
        x, y = self._inputs(batch)
        with torch.no_grad():
            fake = self.trainable(x)
        parts = self.critic_loss(y, fake)
        opt_critic.zero_grad()
        self.manual_backward(parts["critic_loss"])
        opt_critic.step()
        if self._critic_updates(batch_idx) % self.hparams.critic_steps == 0:
            for p in self.critic.parameters():
                p.requires_grad_(False)
            map_parts = self.map_loss(x, y)
            opt_map.zero_grad()
            self.manual_backward(map_parts["map_loss"])
            opt_map.step()
            for p in self.critic.parameters():
                p.requires_grad_(True)
            if isinstance(self.trainable, LinearMap) and self.hparams.orthogonalise > 0:
                self.trainable.orthogonalise(self.hparams.orthogonalise)
            parts.update(map_parts)
        finite = torch.isfinite(torch.stack([v.detach() for v in parts.values()])).all()
        self._finite = finite if self._finite is None else self._finite & finite
        self.log_dict({f"train_{k}": v.detach() for k, v in parts.items()}, on_step=False,
                      on_epoch=True, batch_size=len(x))
