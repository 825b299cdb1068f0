"""Lightning modules that fit mappings, one per method family: closed form (moments + exact
solve); over ``MappingFit``, gradient-trained (``TrainedFit``: flow, regression), adversarial
(``AdversarialFit``: GAN-Real-NVP, MUSE), self-learning (VecMap) and mining as siblings.
Which family fits a method is said in one place, the method registry's ``fitter``."""
from __future__ import annotations

import inspect
from typing import Any

import pytorch_lightning as pl

from alignment.errors import InputError
from alignment.mappings import MethodSpec, parse_method

from .adversarial import AdversarialFit, GanRealNVPFit, MuseFit
from .base import MappingFit, resolve_class
from .closed_form import ClosedFormFit
from .flow import FlowFit
from .joint_align import JointAlign
from .mining import MiningFit
from .regression import RegressionFit
from .self_learning import SelfLearningFit
from .trained import TrainedFit


def fitter_class(spec: MethodSpec) -> type[pl.LightningModule]:
    """The module class the registry names for ``spec``."""
    return resolve_class(spec.fitter)


def fitter_settings(spec: MethodSpec) -> set[str]:
    """The settings a method variant may override: its fitter's constructor arguments."""
    params = inspect.signature(fitter_class(spec).__init__).parameters
    return set(params) - {"self", "method", "dim"}


def check_settings(spec: MethodSpec, parameter: str = "methods") -> None:
    """Refuse a variant setting its fitter does not take, naming the spec."""
    allowed = fitter_settings(spec)
    for key in spec.overrides:
        if key not in allowed:
            raise InputError(f"'{spec.text or spec.label}': unknown setting '{key}' (known: "
                             f"{', '.join(sorted(allowed))})", parameter=parameter)


def build_fitter(method: str | MethodSpec, **settings: Any) -> pl.LightningModule:
    """The module that fits ``method``: the registry's defaults, then ``settings``, then the
    spec's own overrides (``realnvp:dual=false``)."""
    spec = parse_method(method)
    check_settings(spec)
    if spec.trained is None:
        return ClosedFormFit(spec.name)
    kwargs = {**spec.trained.defaults, **settings, **spec.overrides}
    return fitter_class(spec)(spec.name, **kwargs)


__all__ = ["AdversarialFit", "ClosedFormFit", "FlowFit", "GanRealNVPFit", "JointAlign", "MappingFit",
           "MiningFit", "MuseFit", "RegressionFit", "SelfLearningFit", "TrainedFit", "build_fitter",
           "check_settings", "fitter_class", "fitter_settings", "resolve_class"]
