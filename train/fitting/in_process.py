"""Fit any registered method on a DataModule through its fit plan, quietly (for fits inside a
larger job: the demo, ``compare``, ``simulate``, tests). ``crossalign fit`` does the same from a
recipe."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytorch_lightning as pl

from alignment.mappings import Mapping, MethodSpec
from alignment.export.provenance import DataProvenance

from train.data.paired import PairedVectorDataModule
from train.fitting.plan import plan_fit


def fit_module(method: str | MethodSpec, dm: pl.LightningDataModule, epochs: int = 30,
               callbacks: list | None = None, run_dir: str | Path | None = None,
               **settings) -> pl.LightningModule:
    """``fit_method``, returning the fitted module itself (for what a family records beside
    its mapping, e.g. ``MiningFit.rounds``)."""
    return plan_fit(method, epochs, **settings).run(dm, callbacks, run_dir)


def fit_method(method: str | MethodSpec, dm: pl.LightningDataModule, epochs: int = 30,
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
