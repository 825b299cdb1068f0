"""Stopping a trained map whose training blew up without going NaN."""
from __future__ import annotations

import copy
import math
import warnings

import pytorch_lightning as pl

from alignment.errors import InputError


class CollapseGuard(pl.Callback):
    """Stop a trained map whose training blew up without going NaN: an epoch's mean training
    loss above ``loss_factor`` × the lowest so far, or (with validation) the semantic criterion
    more than ``semantic_drop`` below its best. The weights of the lowest-loss epoch are put
    back, training stops, and the epoch is reported (``collapsed_epoch``) with one warning that
    names the learning rate. NaN/inf losses are the divergence guard's (an error)."""

    def __init__(self, loss_factor: float = 10.0, semantic_drop: float = 0.2) -> None:
        if loss_factor <= 1:
            raise InputError("must be > 1", parameter="loss_factor")
        self.loss_factor, self.semantic_drop = loss_factor, semantic_drop
        self.best_loss = float("inf")
        self.best_semantic = -float("inf")
        self.best_state: dict | None = None
        self.collapsed_epoch: int | None = None

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        metrics = trainer.callback_metrics
        loss = float(metrics.get("train_loss", float("nan")))
        semantic = float(metrics["semantic"]) if "semantic" in metrics else None
        if not math.isfinite(loss):
            return  # the module's divergence check raises for these
        blown = loss > self.loss_factor * self.best_loss
        dropped = semantic is not None and semantic < self.best_semantic - self.semantic_drop
        if blown or dropped:
            self.collapsed_epoch = trainer.current_epoch
            if self.best_state is not None:
                pl_module.load_state_dict(self.best_state)
            trainer.should_stop = True
            why = (f"training loss {loss:.4g} > {self.loss_factor:g} × best {self.best_loss:.4g}"
                   if blown else f"semantic criterion {semantic:.3f} fell more than "
                   f"{self.semantic_drop:g} below its best {self.best_semantic:.3f}")
            lr = getattr(pl_module.hparams, "lr", None)
            warnings.warn(f"training collapsed at epoch {self.collapsed_epoch} ({why}); stopped "
                          f"and restored the lowest-loss epoch's weights — lower lr (now {lr})")
            return
        if semantic is not None:
            self.best_semantic = max(self.best_semantic, semantic)
        if loss < self.best_loss:
            self.best_loss = loss
            self.best_state = copy.deepcopy(pl_module.state_dict())

    def state_dict(self) -> dict:
        return {"best_loss": self.best_loss, "best_semantic": self.best_semantic,
                "collapsed_epoch": self.collapsed_epoch}

    def load_state_dict(self, state_dict: dict) -> None:
        self.best_loss = state_dict.get("best_loss", float("inf"))
        self.best_semantic = state_dict.get("best_semantic", -float("inf"))
        self.collapsed_epoch = state_dict.get("collapsed_epoch")


