"""What the pieces of a fit promise each other, as Protocols: the plan, the recipe runner and
the callbacks rely on these members and on nothing else of a module or a DataModule."""
from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import torch

from alignment.mappings import DataKind, Mapping, MethodSpec
from alignment.mappings.moments import PairMoments, PairStatistics


def class_path(cls: type) -> str:
    """The dotted name by which the registry's ``fitter`` and a recipe's ``class_path:`` name
    ``cls`` (its module and qualified name)."""
    return f"{cls.__module__}.{cls.__qualname__}"


@runtime_checkable
class Fitter(Protocol):
    """A Lightning module that fits something (a map, or the encoder itself): which kind of
    data it reads."""

    @property
    def data(self) -> DataKind: ...


@runtime_checkable
class MethodFitter(Fitter, Protocol):
    """A fitter of one registered method, holding it parsed, and (once fitted) its mapping."""

    spec: MethodSpec
    mapping: Mapping | None


@runtime_checkable
class Selectable(Protocol):
    """A module whose selection keeps something other than a mapping (an encoder being
    fine-tuned): ``KeepBest`` keeps and restores these weights."""

    @property
    def selectable(self) -> torch.nn.Module: ...


@runtime_checkable
class FitData(Protocol):
    """A DataModule a plan can check: the kind of data it provides."""

    provides: ClassVar[DataKind]


@runtime_checkable
class VectorData(FitData, Protocol):
    """Word vectors of two languages (paired or not): what a closed-form solve and a trained
    map's statistics read."""

    def pair_moments(self) -> PairMoments: ...

    def pair_statistics(self) -> PairStatistics: ...


@runtime_checkable
class ChecksData(Protocol):
    """A callback with a demand on the data (validation pools, …), checked before the run
    reads any."""

    def check_data(self, datamodule) -> None: ...
