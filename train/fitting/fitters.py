"""Which Lightning module fits a method and which settings it takes: the fitter classes by
reference, keyed by the ``family`` each declares (the registry's ``fitter`` names one), and every
setting of a method string checked against that class's constructor before any data is read."""
from __future__ import annotations

import inspect
import math
import types
import typing
from typing import Any

from alignment.catalogue import Registry, unknown_name
from alignment.errors import InputError
from alignment.mappings import MethodSpec

from train.modules import ClosedFormFit, FlowFit, RegressionFit
from train.unsupervised import GanRealNVPFit, MiningFit, MuseFit, SelfLearningFit

FITTERS: Registry[type] = Registry("fitter family", "method")
for _cls in (ClosedFormFit, FlowFit, RegressionFit, GanRealNVPFit, MuseFit, SelfLearningFit,
             MiningFit):
    FITTERS.add(_cls.family, _cls)


def register_fitter(cls: type) -> type:
    """Make ``cls`` the fitter of its ``family`` (a new family's one line; usable as a class
    decorator); refuses a class without a family and a family already taken by another class."""
    family = getattr(cls, "family", None)
    if not family:
        raise ValueError(f"{cls.__name__} names no family (set family = \"...\" on the class)")
    if family in FITTERS and FITTERS[family] is not cls:
        raise ValueError(f"family '{family}' is already fitted by {FITTERS[family].__name__}")
    if family not in FITTERS:
        FITTERS.add(family, cls)
    return cls


def unregister_fitter(family: str) -> None:
    """Remove a family registered with ``register_fitter`` (tests, plugins unloading)."""
    if family in FITTERS:
        FITTERS.remove(family)


def fitter_class(spec: MethodSpec) -> type:
    """The Lightning module class of the family the registry names for ``spec`` (its last
    stage's ``fitter``)."""
    if spec.fitter not in FITTERS:
        raise unknown_name("fitter family", spec.fitter, FITTERS, "method",
                           f"'{spec.text or spec.label}': ",
                           "register_fitter(YourFit) in train.fitting.fitters adds one")
    return FITTERS[spec.fitter]


def fitter_settings(spec: MethodSpec) -> set[str]:
    """The settings a method variant may override: its fitter's constructor arguments."""
    return _settings_of(fitter_class(spec))


def _settings_of(cls: type) -> set[str]:
    return set(inspect.signature(cls.__init__).parameters) - {"self", "method", "dim"}


def check_settings(spec: MethodSpec, parameter: str = "methods") -> None:
    """Refuse a variant setting its fitter does not take, or a value of the wrong type or out
    of range, naming the spec and the setting — before any data is read."""
    cls = fitter_class(spec)
    allowed = _settings_of(cls)
    for key in spec.overrides:
        if key not in allowed:
            raise unknown_name("setting", key, allowed, parameter, f"'{spec.text or spec.label}': ")
    hints = typing.get_type_hints(cls.__init__)
    defaults = {n: p.default for n, p in inspect.signature(cls.__init__).parameters.items()}
    for key, value in spec.overrides.items():
        why = setting_problem(key, value, hints.get(key), defaults.get(key))
        if why:
            raise InputError(f"'{spec.text or spec.label}': setting {key}={value!r} {why}",
                             parameter=parameter)


MAX_COUNT = 1_000_000  # no width, depth or step count of a map is anywhere near this


def setting_problem(key: str, value: Any, hint: Any, default: Any) -> str | None:
    """Why ``value`` does not suit a setting typed ``hint`` with ``default``; None if it does.
    Counts are whole numbers in [1, 10^6] (0 allowed where the default is 0); rates and
    weights are finite and not below 0 where the default is not."""
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType) and \
        type(None) in typing.get_args(hint)
    base = next((a for a in typing.get_args(hint) if a is not type(None)), hint) if optional \
        else hint
    if value is None:
        return None if optional else "must be given (not null)"
    if base is bool:
        return None if isinstance(value, bool) else "must be true or false"
    if base is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return "must be a whole number"
        low = 1 if isinstance(default, int) and default >= 1 else 0
        return None if low <= value <= MAX_COUNT else f"must be in [{low}, {MAX_COUNT:,}]"
    if base is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "must be a number"
        if not math.isfinite(value):
            return "must be finite"
        if key == "lr" or key.endswith("_lr"):  # 0 is allowed: an untrained control
            return None if value >= 0 else "must be >= 0"
        if isinstance(default, (int, float)) and default >= 0 and value < 0:
            return "must be >= 0"
        return None
    if base is str:
        return None if isinstance(value, str) else "must be a word"
    if typing.get_origin(base) is list:
        (item,) = typing.get_args(base) or (object,)
        ok = isinstance(value, list) and all(isinstance(v, item) and not isinstance(v, bool)
                                             for v in value)
        return None if ok else f"must be a list of {getattr(item, '__name__', item)}"
    return None
