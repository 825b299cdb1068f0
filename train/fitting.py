"""Fit a mapping on in-memory paired vectors through the Lightning Trainer (used by the demo and
the tests; the CLI's ``fit`` does the same from a recipe)."""
from __future__ import annotations

import logging
import warnings
from pathlib import Path

import numpy as np
import pytorch_lightning as pl

from alignment.mappings import Mapping

from .callbacks import SaveMapping
from .closed_form import ClosedFormMapping
from .datamodule import PairedVectorDataModule


def quiet_trainer(max_epochs: int = 1, callbacks: list | None = None, **kwargs) -> pl.Trainer:
    """A Trainer without logger, progress bar, summary or banner (for fits inside a larger job)."""
    for name in ("pytorch_lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(name).setLevel(logging.WARNING)
    settings = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                    enable_model_summary=False, accelerator="cpu", devices=1)
    settings.update(kwargs)
    return pl.Trainer(max_epochs=max_epochs, callbacks=callbacks or [], **settings)


def fit_closed_form(x: np.ndarray, y: np.ndarray, method: str, run_dir: str | Path | None = None,
                    data_info: dict | None = None, batch_size: int = 8192) -> Mapping:
    """Fit ``method`` (e.g. ``"center > clp"``) on paired rows; with ``run_dir``, save the mapping,
    metrics and (given ``data_info`` with an encoder identity) the export there."""
    dm = PairedVectorDataModule.from_arrays(x, y, batch_size=batch_size,
                                            **{k: v for k, v in (data_info or {}).items()
                                               if k in ("src_lang", "tgt_lang")})
    for key in ("encoder_identity", "data_fingerprint", "n_sentences", "corpus_name"):
        if data_info and key in data_info:
            setattr(dm, key, data_info[key])
    module = ClosedFormMapping(method)
    callbacks = [SaveMapping(str(run_dir))] if run_dir is not None else []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(optimizer|num_workers|does not have many "
                                "workers|LeafSpec|max_epochs).*")
        quiet_trainer(callbacks=callbacks, default_root_dir=str(run_dir or ".")).fit(module, datamodule=dm)
    assert module.mapping is not None
    return module.mapping


def fit_any(method: str, dm: PairedVectorDataModule, epochs: int = 30, **hparams) -> Mapping:
    """Fit a closed-form composition (``"clp"``, ``"linear"``, ``"center > clp"`` …) or a trained
    method (``"realnvp"``, ``"fcnn"``) on a DataModule, through the Trainer."""
    from .gradient import METHODS, GradientMapping

    if method in METHODS:
        module = GradientMapping(method, **hparams)
        max_epochs = epochs
    else:
        module = ClosedFormMapping(method)
        max_epochs = 1
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(optimizer|num_workers|does not have many "
                                "workers|LeafSpec|max_epochs|val_dataloader|validation_step|Total length).*")
        quiet_trainer(max_epochs=max_epochs, num_sanity_val_steps=0).fit(module, datamodule=dm)
    assert module.mapping is not None
    return module.mapping
