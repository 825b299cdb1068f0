"""Method variants for comparisons and ablations: ``realnvp:nll_weight=0,dual=false`` names a
trained method plus hyper-parameter overrides, so one command line can run an ablation."""
from __future__ import annotations

import inspect

import yaml

from alignment.errors import InputError


def parse_variant(spec: str) -> tuple[str, dict]:
    """``"method[:key=value,...]"`` → (method, overrides). Values are read as YAML scalars
    (``0.1``, ``false``, ``8``). Overrides are only allowed for trained methods and must name a
    ``GradientMapping`` argument; anything else is an error naming the spec."""
    from alignment.mappings import parse_stages

    from .gradient import METHODS, GradientMapping

    method, _, rest = spec.partition(":")
    method = method.strip()
    if method not in METHODS:
        parse_stages(method)  # a closed-form composition; raises on an unknown stage
    if not rest:
        return method, {}
    if method not in METHODS:
        raise InputError(f"'{spec}': only trained methods {METHODS} take overrides", parameter="methods")
    allowed = set(inspect.signature(GradientMapping.__init__).parameters) - {"self", "method", "dim"}
    overrides: dict = {}
    for item in rest.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key:
            raise InputError(f"'{spec}': expected key=value, got '{item}'", parameter="methods")
        if key not in allowed:
            raise InputError(f"'{spec}': unknown setting '{key}' (known: {', '.join(sorted(allowed))})",
                             parameter="methods")
        overrides[key] = yaml.safe_load(value)
    return method, overrides


def parse_variants(specs: list[str]) -> dict[str, tuple[str, dict]]:
    """Parse every spec up front (so a typo fails before any training); keyed by the spec."""
    if len(set(specs)) != len(specs):
        raise InputError("a method/variant is listed twice", parameter="methods")
    return {spec: parse_variant(spec) for spec in specs}
