"""Fit any registered method on a DataModule through the Lightning Trainer, quietly (for fits
inside a larger job: the demo, ``compare``, ``simulate``, tests). ``crossalign fit`` does the
same from a recipe."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.mappings import Mapping, MethodSpec, parse_method
from alignment.export.provenance import DataProvenance

from train.callbacks import SaveMapping
from train.data.paired import PairedVectorDataModule, VectorDataModule
from train.modules import build_fitter
from train.fitting.trainer import RECIPE_NOISE, quiet_trainer

# inside experiments, also validation pairs a closed-form fit does not use, or their absence
_NOISE = f"{RECIPE_NOISE}|.*(val_dataloader|validation_step).*"


def fit_module(method: str | MethodSpec, dm: VectorDataModule, epochs: int = 30,
               callbacks: list | None = None, run_dir: str | Path | None = None,
               **settings) -> pl.LightningModule:
    """``fit_method``, returning the fitted module itself (for what a family records beside
    its mapping, e.g. ``MiningFit.rounds``)."""
    spec = parse_method(method)
    module = build_fitter(spec, **settings)
    callbacks = list(callbacks or [])
    if run_dir is not None:
        callbacks.append(SaveMapping(str(run_dir)))
    selecting = any(isinstance(c, ModelCheckpoint) for c in callbacks)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_NOISE)
        quiet_trainer(max_epochs=epochs if spec.trained else 1, callbacks=callbacks,
                      enable_checkpointing=selecting,
                      default_root_dir=str(run_dir or ".")).fit(module, datamodule=dm)
    assert module.mapping is not None
    return module


def fit_method(method: str | MethodSpec, dm: VectorDataModule, epochs: int = 30,
               callbacks: list | None = None, run_dir: str | Path | None = None,
               **settings) -> Mapping:
    """Fit a closed-form composition (``"center > clp"``, one pass) or a trained method
    (``"realnvp:dual=false"``, ``epochs`` epochs, ``settings`` for its fitter) and return the
    mapping; with ``run_dir``, also save mapping, metrics, run.json and export there."""
    return fit_module(method, dm, epochs, callbacks, run_dir, **settings).mapping


def fit_arrays(x: np.ndarray, y: np.ndarray, method: str | MethodSpec,
               run_dir: str | Path | None = None, provenance: DataProvenance | None = None,
               batch_size: int = 8192, epochs: int = 30, **settings) -> Mapping:
    """``fit_method`` on paired rows already in memory (``provenance``: where they came from,
    for run.json and the export)."""
    dm = PairedVectorDataModule.from_arrays(x, y, provenance=provenance, batch_size=batch_size)
    return fit_method(method, dm, epochs, run_dir=run_dir, **settings)
