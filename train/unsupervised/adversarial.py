"""Adversarial alignment without pairs: a critic separates target vectors Y from mapped source
vectors f(X) and the map learns to fool it. GAN-Real-NVP (Zhao & Eger 2022: a Wasserstein
critic, the flow also modelling both densities) and MUSE-style (Conneau et al. 2018: a
standard discriminator, a linear map kept orthogonal) are the two families."""
from __future__ import annotations

import torch

from alignment.errors import InputError
from alignment.mappings import (Composition, LinearMap, LinearStage, Mapping, MethodSpec,
                                RealNVPMapping, StagedMapping, compose_affine)
from alignment.mappings.flow import CONSTANT_REL_STD
from alignment.mappings.moments import PairStatistics
from alignment.mappings.staged import through_pre_stages
from alignment.unsupervised.critic import LIPSCHITZ, Critic
from alignment.catalogue import check_choice
from alignment.unsupervised.objectives import OBJECTIVES, make_objective

from train.modules.mapping_fit import MappingFit
from train.modules.flow import build_flow

UNPAIRED_PRE_STAGES = {"identity", "center", "norm"}  # the stages that need no pairs
ADAM_BETAS = (0.5, 0.9)  # the usual adversarial setting: little momentum


def check_unpaired(spec: MethodSpec, method):
    """Refuse closed-form stages that need pairs before an unsupervised method."""
    paired = [s for s in spec.pre_stages if s not in UNPAIRED_PRE_STAGES]
    if paired:
        raise InputError(f"'{spec.name}': '{paired[0]}' needs translation pairs; before an "
                         f"unsupervised method only {', '.join(sorted(UNPAIRED_PRE_STAGES))} "
                         "may come first", parameter="method")
    return method


class AdversarialFit(MappingFit):
    """The adversarial loop on *unpaired* rows (``batch = (x, y)``, rows need not be
    translations; only per-language statistics are used, so only ``center`` / ``norm`` may come
    first). A family subclasses it with its map (``build_mapping``), an optional extra map loss
    (``map_extra``) and an optional step after each map update (``after_map_step``).

    Each training step updates the critic; every ``critic_steps``-th update, counted over the
    whole run, also updates the map. ``map_steps``: the budget in map updates (training stops
    after that many; the epochs are then only an upper bound) — what the map learns from is
    its own steps, not epochs of a data set whose size sets how many there are. ``objective`` names the loss pair in
    ``alignment.unsupervised.objectives.OBJECTIVES`` (``wgan``: + ``gp_weight`` × gradient
    penalty with ``lipschitz="penalty"``; ``gan``: binary cross-entropy with
    ``label_smoothing``). Adam with β = (0.5, 0.9). Validation logs label-free criteria only
    (the validation pools are unpaired)."""

    paired_validation = False

    def __init__(self, method: str | MethodSpec, lr: float = 1e-4, critic_lr: float = 1e-4,
                 objective: str = "wgan", critic_steps: int = 5, gp_weight: float = 10.0,
                 lipschitz: str = "penalty", critic_hidden: int = 1024, critic_layers: int = 2,
                 critic_dropout: float = 0.0, label_smoothing: float = 0.2,
                 semantic_top: float = 1000, semantic_mutual: bool = False,
                 map_steps: int | None = None, orthogonalise: float = 0.0) -> None:
        if map_steps is not None and map_steps < 1:
            raise InputError(f"must be >= 1 (or null: the epochs decide), got {map_steps}",
                             parameter="map_steps")
        OBJECTIVES.lookup(objective, "objective")  # an unknown one: the error naming the known
        check_choice(lipschitz, LIPSCHITZ, "Lipschitz mode", "lipschitz")
        if critic_steps < 1:
            raise InputError(f"must be >= 1, got {critic_steps}", parameter="critic_steps")
        if not 0 <= label_smoothing < 0.5:
            raise InputError(f"must be in [0, 0.5), got {label_smoothing}",
                             parameter="label_smoothing")
        if orthogonalise < 0:  # β of MUSE's orthogonalising update of a linear map
            raise InputError(f"must be >= 0, got {orthogonalise}", parameter="orthogonalise")
        super().__init__(method, semantic_top, semantic_mutual)
        self.automatic_optimization = False
        self.objective = make_objective(objective, lipschitz, gp_weight, label_smoothing)
        self.critic: Critic | None = None
        self.map_updates = 0  # map steps taken (kept in checkpoints)
        self.critic_warmup = 0  # critic updates before the first map step (a subclass sets it)

    def _check_method(self, spec: MethodSpec):
        return check_unpaired(spec, super()._check_method(spec))

    # -- what a family provides ------------------------------------------------------------
    def map_extra(self, x: torch.Tensor, y: torch.Tensor
                  ) -> dict[str, tuple[float, torch.Tensor]]:
        """Terms of the map's loss beside the adversarial one: name → (weight, value); the
        value is logged under its name, weight × value is added."""
        return {}

    def after_map_step(self) -> None:
        """Runs after each map update."""

    # -- the loop ------------------------------------------------------------------------------
    def configure_model(self) -> None:
        super().configure_model()
        if self.critic is None:
            hp = self.hparams
            self.critic = Critic(self.mapping.dim, hp.critic_hidden, hp.critic_layers,
                                 hp.critic_dropout, self.objective.critic_lipschitz)

    def configure_optimizers(self):
        hp = self.hparams
        return (torch.optim.Adam(self.trainable.parameters(), lr=hp.lr, betas=ADAM_BETAS),
                torch.optim.Adam(self.critic.parameters(), lr=hp.critic_lr, betas=ADAM_BETAS))

    def step_generator(self) -> torch.Generator | None:
        """What draws this critic update's random numbers (None: the global RNG)."""
        return None

    def critic_loss(self, real: torch.Tensor, fake: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.objective.critic_loss(self.critic, real, fake, self.step_generator())

    def map_loss(self, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        out = {"map_adversarial": self.objective.map_loss(self.critic(self.trainable(x)))}
        out["map_loss"] = out["map_adversarial"]
        for name, (weight, value) in self.map_extra(x, y).items():
            out[name] = value
            out["map_loss"] = out["map_loss"] + weight * value
        return out

    def map_step(self, batch, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        """One map update on ``x``, ``y`` (the batch through the closed-form stages; ``batch``:
        the raw rows); its loss terms."""
        opt_map = self.optimizers()[0]
        parts = self.map_loss(x, y)
        opt_map.zero_grad()
        self.manual_backward(parts["map_loss"])
        opt_map.step()
        self.after_map_step()
        return parts

    def _critic_updates(self, batch_idx: int) -> int:
        """Critic updates so far, this one included, counted over the whole run (Lightning's
        batch progress, kept in checkpoints): the map is stepped every ``critic_steps``-th
        update across epochs, not on a count that restarts each epoch (which gave a 400-row
        data set one map step per epoch)."""
        trainer = self._trainer
        if trainer is None:
            return batch_idx + 1
        return trainer.fit_loop.epoch_loop.batch_progress.total.ready

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        checkpoint["map_updates"] = self.map_updates

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        self.map_updates = int(checkpoint.get("map_updates", 0))

    def training_step(self, batch, batch_idx: int) -> None:
        opt_critic = self.optimizers()[1]
        with torch.no_grad():
            x, y = through_pre_stages(self.mapping, batch[0], batch[1])
            fake = self.trainable(x)
        parts = self.critic_loss(y, fake)
        opt_critic.zero_grad()
        self.manual_backward(parts["critic_loss"])
        opt_critic.step()
        updates = self._critic_updates(batch_idx) - self.critic_warmup
        if updates > 0 and updates % self.hparams.critic_steps == 0:
            self.critic.requires_grad_(False)
            map_parts = self.map_step(batch, x, y)
            self.critic.requires_grad_(True)
            parts.update(map_parts)
            self.map_updates += 1
            if self.hparams.map_steps is not None and self.map_updates >= self.hparams.map_steps:
                self.trainer.should_stop = True
        self._track_finite(*parts.values())
        self.log_dict({f"train_{k}": v.detach() for k, v in parts.items()}, on_step=False,
                      on_epoch=True, batch_size=len(x))


class GanRealNVPFit(AdversarialFit):
    """``gan_realnvp``: a Real-NVP map against a Wasserstein critic, plus ``nll_weight`` × the
    negative log-likelihood per modelled dimension of x and y under its flows (density
    modelling; the paper's objective has it, 0.1 here). Flow settings as ``FlowFit``'s;
    ``warm_start``: the flow starts as the identity on one shared standardisation. Defaults
    from the CBLI simulation (docs/unsupervised.md, the critic constraint): a spectrally
    normalised critic (with the gradient penalty the map slides off the answer) and no density
    term (it moves the map where the critic does not; every seed then finds the words).

    ``linear_steps``: the first that many of the ``map_steps`` map updates train a linear map
    W instead (at ``linear_lr``, kept orthogonal by MUSE's update with β = ``orthogonalise``;
    constant dimensions left alone) under the same critic — a linear adversarial start; W then
    stays fixed as a stage before the flow (``linear_start`` in the map's name)."""

    family = "gan_realnvp"

    def __init__(self, method: str | MethodSpec = "gan_realnvp", lr: float = 1e-4, critic_lr: float = 1e-4,
                 objective: str = "wgan", critic_steps: int = 5, gp_weight: float = 10.0,
                 lipschitz: str = "spectral", critic_hidden: int = 1024, critic_layers: int = 2,
                 critic_dropout: float = 0.0, label_smoothing: float = 0.2,
                 nll_weight: float = 0.0, transforms: int = 4, hidden: int = 256,
                 layers: int = 2, warm_start: bool = True,
                 constant_rel_std: float = CONSTANT_REL_STD, passive: list[int] | None = None,
                 linear_steps: int = 0, linear_lr: float = 1e-3, orthogonalise: float = 0.01,
                 semantic_top: float = 1000, semantic_mutual: bool = False,
                 map_steps: int | None = None, dim: int | None = None) -> None:
        if linear_steps < 0:
            raise InputError(f"must be >= 0, got {linear_steps}", parameter="linear_steps")
        if linear_steps and map_steps is not None and linear_steps >= map_steps:
            raise InputError(f"the linear start's {linear_steps} map updates leave none of "
                             f"map_steps={map_steps} for the flow", parameter="linear_steps")
        if linear_steps and not warm_start:
            raise InputError("a linear start needs warm_start=true (the flow must start as the "
                             "identity on the linear map)", parameter="linear_steps")
        super().__init__(method, lr, critic_lr, objective, critic_steps, gp_weight, lipschitz,
                         critic_hidden, critic_layers, critic_dropout, label_smoothing,
                         semantic_top, semantic_mutual, map_steps, orthogonalise)
        self.save_hyperparameters()
        self.linear: LinearMap | None = None
        self._build_now(dim)

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        return build_flow(dim, stats, self.hparams)

    # -- the linear start ----------------------------------------------------------------
    def configure_model(self) -> None:
        super().configure_model()
        if self.hparams.linear_steps and self.linear is None:
            if not isinstance(self.mapping, StagedMapping):
                self.mapping = StagedMapping.of(Composition(self.mapping.dim), self.mapping)
            self.mapping.pre.stages.append(LinearStage(self.mapping.dim))
            self.linear = LinearMap(self.mapping.dim)

    def configure_optimizers(self):
        opts = super().configure_optimizers()
        if self.linear is None:
            return opts
        return (*opts, torch.optim.Adam(self.linear.parameters(), lr=self.hparams.linear_lr,
                                        betas=ADAM_BETAS))

    def _linear_phase(self) -> bool:
        return self.linear is not None and self.map_updates < self.hparams.linear_steps

    def map_step(self, batch, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        if not self._linear_phase():
            return super().map_step(batch, x, y)
        pre = self.mapping.pre
        before = compose_affine([s.affine() for s in pre.stages[:-1]], pre.dim)
        x0 = (batch[0].to(torch.float64) @ before[0] + before[1]).to(x.dtype)
        loss = self.objective.map_loss(self.critic(self.trainable(self.linear(x0))))
        opt = self.optimizers()[2]
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        with torch.no_grad():
            if self.hparams.orthogonalise > 0:
                self.linear.orthogonalise(self.hparams.orthogonalise)
            w = self.linear.weight
            for i in self.trainable.passive:  # constant dimensions stay put
                w[i, :] = 0
                w[:, i] = 0
                w[i, i] = 1
        pre.stages[-1].set_weight(self.linear.weight)
        pre.collapse()
        return {"map_adversarial": loss.detach(), "map_loss": loss.detach()}

    def map_extra(self, x: torch.Tensor, y: torch.Tensor
                  ) -> dict[str, tuple[float, torch.Tensor]]:
        flow: RealNVPMapping = self.trainable
        if self.hparams.nll_weight <= 0:
            return {}
        nll = -(flow.log_prob_x(x) + flow.log_prob_y(y)).mean() / (2 * len(flow.active_idx))
        return {"nll": (self.hparams.nll_weight, nll)}


class MuseFit(AdversarialFit):
    """``muse``: a linear map against a standard discriminator (the registry's defaults set
    MUSE's objective and sizes), kept orthogonal by W ← (1 + β)W − β(WWᵀ)W after each map
    step, β = ``orthogonalise`` (0 turns it off)."""

    family = "muse"

    def __init__(self, method: str | MethodSpec = "muse", lr: float = 1e-4, critic_lr: float = 1e-4,
                 objective: str = "wgan", critic_steps: int = 5, gp_weight: float = 10.0,
                 lipschitz: str = "penalty", critic_hidden: int = 1024, critic_layers: int = 2,
                 critic_dropout: float = 0.0, label_smoothing: float = 0.2,
                 orthogonalise: float = 0.01, semantic_top: float = 1000,
                 semantic_mutual: bool = False, map_steps: int | None = None,
                 dim: int | None = None) -> None:
        super().__init__(method, lr, critic_lr, objective, critic_steps, gp_weight, lipschitz,
                         critic_hidden, critic_layers, critic_dropout, label_smoothing,
                         semantic_top, semantic_mutual, map_steps, orthogonalise)
        self.save_hyperparameters()
        self._build_now(dim)

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        return LinearMap(dim)

    def after_map_step(self) -> None:
        if self.hparams.orthogonalise > 0:
            self.trainable.orthogonalise(self.hparams.orthogonalise)
