"""Trained (non-closed-form) mappings as a LightningModule: Real-NVP density matching and the
FCNN baseline, with the validation criteria logged every epoch."""
from __future__ import annotations

import pytorch_lightning as pl
import torch

from alignment.criteria import paired_p1, semantic_criterion, structural_criterion
from alignment.mappings import FCNN, Mapping, RealNVPMapping

METHODS = ("realnvp", "fcnn")


class GradientMapping(pl.LightningModule):
    """Fit ``realnvp`` or ``fcnn`` by Adam on paired vectors.

    Real-NVP loss (Zhao & Eger 2022, dual form): ‖f(x) − y‖² + ‖f⁻¹(y) − x‖² (density matching,
    summed over dimensions, mean over pairs) + ``nll_weight`` × the negative log-likelihood of
    x and y under their flows, in nats per dimension (density modelling). FCNN: ‖f(x) − y‖².
    Logged each validation epoch: ``semantic`` (higher is better), ``structural`` (lower),
    ``val_p1`` (labelled) and ``val_mse``."""

    def __init__(self, method: str = "realnvp", lr: float = 1e-3, weight_decay: float = 0.0,
                 nll_weight: float = 0.1, dual: bool = True, transforms: int = 4, hidden: int = 256,
                 layers: int = 2, fcnn_hidden: int = 1024, semantic_top: int = 1000,
                 semantic_mutual: bool = False,
                 dim: int | None = None) -> None:
        super().__init__()
        if method not in METHODS:
            from alignment.errors import InputError

            raise InputError(f"unknown trained method '{method}' (choose {METHODS})", parameter="method")
        self.save_hyperparameters()
        self.mapping: Mapping | None = None
        self._val: list[tuple[torch.Tensor, torch.Tensor]] = []
        self._finite: torch.Tensor | None = None
        if dim is not None:
            self._build(dim)

    def _build(self, dim: int) -> None:
        hp = self.hparams
        self.mapping = RealNVPMapping(dim, hp.transforms, hp.hidden, hp.layers) \
            if hp.method == "realnvp" else FCNN(dim, hp.fcnn_hidden)

    def setup(self, stage: str) -> None:
        if self.mapping is None:
            dm = self.trainer.datamodule
            dm.setup(stage)
            self.hparams.dim = dm.dim
            self._build(dm.dim)
            if isinstance(self.mapping, RealNVPMapping):
                self.mapping.standardise_with(dm.x, dm.y)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        out = {"mse": ((self.mapping(x) - y) ** 2).sum(1).mean()}
        if isinstance(self.mapping, RealNVPMapping):
            if self.hparams.dual:
                out["mse_inverse"] = ((self.mapping.inverse(y) - x) ** 2).sum(1).mean()
            out["nll"] = -(self.mapping.log_prob_x(x) + self.mapping.log_prob_y(y)).mean() / (2 * x.shape[1])
        out["loss"] = out["mse"] + out.get("mse_inverse", 0.0) + self.hparams.nll_weight * out.get("nll", 0.0)
        return out

    def training_step(self, batch, batch_idx: int) -> torch.Tensor:
        parts = self.loss(batch[0], batch[1])
        # a device-side flag, checked once an epoch, so no step waits for a host sync
        finite = torch.isfinite(parts["loss"].detach())
        self._finite = finite if self._finite is None else self._finite & finite
        self.log_dict({f"train_{k}": v for k, v in parts.items()}, on_step=False, on_epoch=True,
                      batch_size=len(batch[0]))
        return parts["loss"]

    def on_train_epoch_end(self) -> None:
        finite, self._finite = self._finite, None
        if finite is not None and not bool(finite):
            self._diverged("non-finite training loss")

    def validation_step(self, batch, batch_idx: int) -> None:
        self._val.append((self.mapping(batch[0]).detach(), batch[1]))

    def on_validation_epoch_end(self) -> None:
        if not self._val:
            return
        mapped = torch.cat([m for m, _ in self._val])
        tgt = torch.cat([t for _, t in self._val])
        self._val.clear()
        if not torch.isfinite(mapped).all():
            self._diverged("non-finite mapped validation vectors")
        hp = self.hparams
        self.log_dict({"semantic": semantic_criterion(mapped, tgt, hp.semantic_top, mutual=hp.semantic_mutual),
                       "structural": structural_criterion(mapped, tgt),
                       "val_p1": paired_p1(mapped, tgt),
                       "val_mse": float(((mapped - tgt) ** 2).sum(1).mean())})

    def _diverged(self, what: str) -> None:
        from alignment.errors import TrainingDiverged

        raise TrainingDiverged(f"{self.hparams.method} training diverged ({what}, epoch "
                               f"{self.current_epoch}); lower lr (now {self.hparams.lr}) or use "
                               "fewer transforms / a smaller nll_weight", parameter="lr")

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr,
                                weight_decay=self.hparams.weight_decay)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mapping(x)
