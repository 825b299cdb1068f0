"""The fit plan: a parsed method becomes the module that fits it, the kind of data it reads
(and the DataModule for that kind), its epoch budget and the callbacks that choose and guard
what it keeps. Every path runs a plan: ``crossalign train`` writes one down as a recipe,
``crossalign fit`` checks a recipe's model and data with ``check_fit``, and fits inside a
larger job (the experiments) build and run one here."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytorch_lightning as pl
from pytorch_lightning.callbacks import ModelCheckpoint

from alignment.errors import InputError
from alignment.mappings import DataKind, MethodSpec, parse_method

from train.callbacks import CollapseGuard, KeepBest, SaveMapping, SelectByCriterion
from train.data.paired import PairedVectorDataModule
from train.data.parallel_text import ParallelTextDataModule
from train.data.unpaired import UnpairedVectorDataModule
from train.modules.mapping_fit import NoGradientSteps
from train.runs.run_log import RunLog

from train.ground.contracts import FitData, Fitter, MethodFitter, class_path
from .fitters import check_settings, fitter_class
from train.ground.trainer import RECIPE_NOISE, quiet_trainer

DATA_MODULES: dict[DataKind, type[pl.LightningDataModule]] = {
    DataKind.PAIRED: PairedVectorDataModule,
    DataKind.UNPAIRED: UnpairedVectorDataModule,
    DataKind.PARALLEL_TEXT: ParallelTextDataModule,
}

# inside a job, also the validation pairs a closed-form fit does not use, or their absence
_NOISE = f"{RECIPE_NOISE}|.*(val_dataloader|validation_step).*"


@dataclass(frozen=True)
class FitPlan:
    """How one parsed method is fitted: ``fitter`` built with ``settings`` (the registry's
    defaults, then the caller's, then the method string's own), on data of ``spec.data``,
    for ``epochs`` epochs (1 for a closed-form composition)."""

    spec: MethodSpec
    fitter: type[pl.LightningModule]
    settings: dict[str, Any] = field(default_factory=dict)
    epochs: int = 1

    @property
    def data(self) -> DataKind:
        return self.spec.data

    @property
    def datamodule_class(self) -> type[pl.LightningDataModule]:
        return DATA_MODULES[self.data]

    @property
    def one_pass(self) -> bool:
        """A closed-form solve or a self-contained loop: one epoch, no optimiser steps."""
        return issubclass(self.fitter, NoGradientSteps)

    def build(self) -> pl.LightningModule:
        """The fitter, holding the parsed method (nothing parses it again)."""
        return self.fitter(self.spec, **self.settings)

    def callbacks(self, criterion: str | None = None, guard: bool = False) -> list[pl.Callback]:
        """In a job: keep the epoch ``criterion`` likes best (restored at the end) and, with
        ``guard``, stop a collapsing fit; neither for a one-pass fit."""
        if self.one_pass:
            return []
        return [*([KeepBest(criterion)] if criterion else []), *([CollapseGuard()] if guard else [])]

    def run(self, dm: pl.LightningDataModule, callbacks: list | None = None,
            run_dir: str | Path | None = None) -> pl.LightningModule:
        """Build, check against ``dm`` and fit quietly; with ``run_dir``, also save the mapping,
        metrics, run.json and export there. Returns the fitted module."""
        module = self.build()
        check_fit(module, dm)
        callbacks = list(callbacks or [])
        if run_dir is not None:
            callbacks.append(SaveMapping(str(run_dir)))
        selecting = any(isinstance(c, ModelCheckpoint) for c in callbacks)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_NOISE)
            quiet_trainer(max_epochs=self.epochs, callbacks=callbacks,
                          enable_checkpointing=selecting,
                          default_root_dir=str(run_dir or ".")).fit(module, datamodule=dm)
        assert module.mapping is not None
        return module

    # -- the plan written down as a recipe (crossalign train) ---------------------------------
    def recipe_model(self) -> dict:
        """The model as a recipe holds it: the fitter, the parsed method (written as its name,
        ``method_text``) and every setting."""
        return {"class_path": class_path(self.fitter), "init_args": {"method": self.spec, **self.settings}}

    def recipe_trainer(self, criterion: str | None) -> dict:
        """The trainer a recipe gives this method: one quiet pass that saves, or epochs chosen
        by ``criterion`` with the collapse guard and the run's CSV log."""
        log = {"logger": [{"class_path": class_path(RunLog)}]}
        save = {"class_path": class_path(SaveMapping)}
        if self.one_pass:
            return {"max_epochs": 1, "enable_checkpointing": False, "enable_progress_bar": False,
                    "enable_model_summary": False, "callbacks": [save],
                    **({"num_sanity_val_steps": 0, **log} if self.spec.trained else
                       {"logger": False})}
        return {"max_epochs": self.epochs, "num_sanity_val_steps": 0,
                "enable_model_summary": False, **log,
                "callbacks": [{"class_path": class_path(SelectByCriterion),
                               "init_args": {"criterion": criterion}},
                              {"class_path": class_path(CollapseGuard)}, save]}


def method_text(spec: MethodSpec) -> str:
    """How a saved recipe writes a parsed method: its stages by name (its settings are the
    model's own ``init_args``, so the text round-trips through the fitter)."""
    return spec.name


def plan_fit(method: str | MethodSpec, epochs: int = 30, parameter: str = "method",
             **settings: Any) -> FitPlan:
    """The plan for ``method`` (parsed here, once): its fitter from the registry, its
    settings checked against that fitter before any data is read."""
    spec = parse_method(method, parameter)
    check_settings(spec, parameter)
    fitter = fitter_class(spec)
    if spec.trained is None:
        return FitPlan(spec, fitter)
    return FitPlan(spec, fitter, {**spec.trained.defaults, **settings, **spec.overrides}, epochs)


def build_fitter(method: str | MethodSpec, **settings: Any) -> pl.LightningModule:
    """The fitter ``plan_fit`` plans for ``method``, built (to drive a trainer yourself)."""
    return plan_fit(method, **settings).build()


def check_fit(model: pl.LightningModule, datamodule: pl.LightningDataModule) -> None:
    """The one data check every path makes before data is read: the data is the kind the
    model's method trains on (a model's own class checks that it fits its method)."""
    if not isinstance(model, Fitter):
        raise InputError(f"{class_path(type(model))} is not a fitter (it says no data kind)",
                         parameter="model")
    needs = model.data
    method = isinstance(model, MethodFitter)
    fits = model.spec.fits_on if method else needs.__eq__
    given = datamodule.provides if isinstance(datamodule, FitData) else None
    if given is None or not fits(given):
        who = f"'{model.spec.name}'" if method else "it"
        wanted = class_path(DATA_MODULES[needs])
        raise InputError(f"{type(model).__name__} fits {who} on {needs.value} data ({wanted}), "
                         f"but the data is {class_path(type(datamodule))}: set data: "
                         f"class_path: {wanted}", parameter="data")
