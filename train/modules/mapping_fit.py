"""What every module that fits a registered mapping method shares, whatever its loop: the method
check against the registry's ``fitter``, the mapping built from the data (closed-form stages
first), the label-free validation criteria, the divergence guard."""
from __future__ import annotations

import inspect
from typing import ClassVar

import pytorch_lightning as pl
import torch

from alignment.evaluation.criteria import score_criteria
from alignment.errors import InputError, TrainingDiverged
from alignment.mappings import (DataKind, Mapping, Method, MethodSpec, StagedMapping,
                                fit_composition, parse_method)
from alignment.mappings.moments import PairStatistics
from alignment.mappings.staged import trainable_part



class HoldsMethod:
    """A fitter given its method parsed (the plan parses once) or as recipe text; its
    hyper-parameters keep the text, since a checkpoint holds no code objects."""

    spec: MethodSpec
    family: ClassVar[str | None] = None  # the registry's ``fitter`` of the methods it fits

    @staticmethod
    def take_method(method: str | MethodSpec) -> MethodSpec:
        """``method`` parsed (text is parsed here, once; a parsed one is kept as it is). Text
        carries stages only: its settings would not reach the constructor's arguments, so
        ``realnvp:lr=1e-4`` is refused in favour of ``init_args: {lr: 1e-4}``."""
        if isinstance(method, MethodSpec):
            return method
        spec = parse_method(method)
        if spec.overrides:
            settings = ", ".join(f"{k}: {v}" for k, v in spec.overrides.items())
            raise InputError(f"'{method}': a recipe's method names its stages only; give its "
                             f"settings as the model's init_args ({settings}) — or run "
                             f"crossalign train --method '{method}'",
                             parameter="model.init_args.method")
        return spec

    @property
    def data(self) -> DataKind:
        """The kind of data this fit reads (the registry's, for its method)."""
        return self.spec.data

    def save_hyperparameters(self, *args, **kwargs) -> None:
        kwargs.setdefault("frame", inspect.currentframe().f_back)
        super().save_hyperparameters(*args, **kwargs)
        if isinstance(self.hparams.get("method"), MethodSpec):
            self.hparams["method"] = self.hparams["method"].name


class MappingFit(HoldsMethod, pl.LightningModule):
    """The base of the method families (gradient-trained, adversarial, self-learning).

    ``method`` may put closed-form stages first (``center > clp > realnvp``): they are fitted
    exactly from the training data's moments before the first step, the family's own map
    learns on the rows pushed through them, and the saved mapping is both (``StagedMapping``).
    The mapping is built in ``configure_model`` from the data's statistics unless ``dim`` is
    given (and there are no stages to fit). Logged each validation epoch: the criteria of
    ``alignment.evaluation.criteria`` (label-free ones only when ``paired_validation`` is
    False); ``semantic_top`` (a count, or a share of the validation pool when < 1) is the
    number of most confident CSLS pairs the induced-pair criteria use."""

    paired_validation = True  # False: validation pools are unpaired, only label-free criteria

    def __init__(self, method: str | MethodSpec, semantic_top: float,
                 semantic_mutual: bool) -> None:
        super().__init__()
        if not semantic_top > 0:
            raise InputError(f"must be > 0 (a count of induced pairs, or a share of the "
                             f"validation pool when < 1), got {semantic_top}",
                             parameter="semantic_top")
        self.spec: MethodSpec = self.take_method(method)
        self.method: Method = self._check_method(self.spec)
        self.mapping: Mapping | None = None
        self._val: list[tuple[torch.Tensor, torch.Tensor]] = []
        self._finite: torch.Tensor | None = None

    def _check_method(self, spec: MethodSpec) -> Method:
        method = spec.trained
        if method is None:
            raise InputError(f"'{spec.name}' is closed-form: use train.modules.ClosedFormFit",
                             parameter="method")
        if method.fitter not in {getattr(c, "family", None) for c in type(self).__mro__}:
            raise InputError(f"'{method.name}' is fitted by the '{method.fitter}' family, not "
                             f"by {type(self).__name__}", parameter="method")
        return method

    # -- what a family provides ------------------------------------------------------------
    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        raise NotImplementedError

    # -- the mapping -------------------------------------------------------------------------
    def _build_now(self, dim: int | None) -> None:
        """With ``dim`` given and nothing to fit first, build the mapping at once."""
        if dim is not None and not self.spec.pre_stages:
            self.mapping = self.build_mapping(dim, None)

    def configure_model(self) -> None:
        if self.mapping is not None:
            return
        dm = self.trainer.datamodule
        if self.spec.pre_stages:
            moments = dm.pair_moments()
            pre = fit_composition(moments, MethodSpec(self.spec.pre_stages))
            stats = PairStatistics.from_moments(moments.transformed(*pre.affine()))
            self.mapping = StagedMapping.of(pre, self.build_mapping(stats.dim, stats))
        else:
            stats = dm.pair_statistics()
            self.mapping = self.build_mapping(stats.dim, stats)
        self.hparams.dim = stats.dim

    def start_from(self, mapping: Mapping) -> "MappingFit":
        """Continue from ``mapping`` instead of building one from the data (self-training's
        refits continue the current map)."""
        self.mapping = mapping
        return self

    @property
    def trainable(self) -> Mapping:
        """The family's own map (without the closed-form stages)."""
        return trainable_part(self.mapping)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mapping(x)

    # -- divergence ---------------------------------------------------------------------------
    def _track_finite(self, *values: torch.Tensor) -> None:
        """Fold this step's losses into a device-side flag checked once an epoch, so no step
        waits for a host sync."""
        finite = torch.isfinite(torch.stack([v.detach().reshape(()) for v in values])).all()
        self._finite = finite if self._finite is None else self._finite & finite

    def on_train_epoch_end(self) -> None:
        finite, self._finite = self._finite, None
        if finite is not None and not bool(finite):
            self._diverged("non-finite training loss")

    def _diverged(self, what: str) -> None:
        lr = self.hparams.get("lr")
        raise TrainingDiverged(f"{self.method.name} training diverged ({what}, epoch "
                               f"{self.current_epoch}); lower lr (now {lr}) or use a smaller "
                               "model / loss weight", parameter="lr")

    # -- validation ---------------------------------------------------------------------------
    def validation_step(self, batch, batch_idx: int) -> None:
        self._val.append((self.mapping(batch[0]).detach(), self.mapping.map_target(batch[1])))

    def on_validation_epoch_end(self) -> None:
        if not self._val:
            return
        mapped = torch.cat([m for m, _ in self._val])
        tgt = torch.cat([t for _, t in self._val])
        self._val.clear()
        if not torch.isfinite(mapped).all():
            self._diverged("non-finite mapped validation vectors")
        logged = score_criteria(mapped, tgt, self.hparams.semantic_top,
                                self.hparams.semantic_mutual, self.paired_validation)
        if self.paired_validation:
            logged["val_mse"] = float(((mapped - tgt) ** 2).sum(1).mean())
        self.log_dict(logged)


class NoGradientSteps:
    """For modules that take no optimiser step (a closed-form solve, a self-learning loop):
    manual optimisation with no optimiser, and one unused parameter because DDP refuses a
    module without trainable parameters."""

    def _take_no_steps(self) -> None:
        self.automatic_optimization = False
        self.ddp_anchor = torch.nn.Parameter(torch.zeros(()))  # never used or stepped

    def configure_optimizers(self):
        return None
