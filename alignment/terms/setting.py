"""A scoring setting: the weight of each term a score adds up — combined (``Setting.combine``),
named in rows, flags and signatures, and laid out as a grid for ``crossalign choose``
(``setting_grid``). The terms themselves are in ``alignment.terms.term``."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from alignment.errors import InputError

from .term import TERMS, get_term


def standardise(values: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """``values`` minus their mean, divided by their standard deviation, within each group (a
    language pair); NaN becomes 0 (the group's mean), and so does a constant group."""
    values = np.asarray(values, dtype=np.float64)
    groups = np.zeros(len(values)) if groups is None else np.asarray(groups)
    out = np.zeros(len(values))
    for g in dict.fromkeys(groups.tolist()):
        idx = np.flatnonzero(groups == g)
        v = values[idx]
        ok = np.isfinite(v)
        if ok.sum() < 2 or np.std(v[ok]) == 0:
            continue
        out[idx] = np.where(ok, (v - v[ok].mean()) / v[ok].std(), 0.0)
    return out


@dataclass(frozen=True)
class Setting:
    """A weight for each term (registry order; a term left out weighs its default)."""

    weights: tuple[tuple[str, float], ...] = ()

    @classmethod
    def of(cls, **weights: float | None) -> "Setting":
        """``Setting.of(lm=0.01, sentence=0.5)``; None leaves a term at its default."""
        given = {get_term(k).name: v for k, v in weights.items() if v is not None}
        for name, value in given.items():
            if not (np.isfinite(value) and value >= 0):
                raise InputError(f"must be finite and >= 0, got {value}",
                                 parameter=TERMS[name].flag.lstrip("-"))
        return cls(tuple((n, float(given.get(n, t.default))) for n, t in TERMS.items()
                         if n in given or t.default))

    def weight(self, name: str) -> float:
        return dict(self.weights).get(name, get_term(name).default)

    def active(self) -> list[str]:
        """The terms with a weight, in registry order."""
        return [n for n, w in self.weights if w]

    def combine(self, values: Mapping[str, np.ndarray | None],
                groups: np.ndarray | None = None) -> np.ndarray:
        """Σ weight × term over the raw terms; where a standard-units term weighs, that sum
        and each such term standardised within ``groups`` (language pairs), then added."""
        missing = [n for n in self.active() if values.get(n) is None]
        if missing:
            raise InputError(f"the setting weighs {', '.join(missing)} but no values were given",
                             parameter="term")
        raw = [n for n in self.active() if TERMS[n].units == "raw"]
        size = len(next(v for v in values.values() if v is not None))
        out = np.zeros(size)
        for n in raw:
            out = out + self.weight(n) * np.asarray(values[n], dtype=np.float64)
        standard = [n for n in self.active() if TERMS[n].units == "standard"]
        if standard:
            out = standardise(out, groups) + sum(
                self.weight(n) * standardise(values[n], groups) for n in standard)
        return out

    def label(self, row: str) -> str:
        """``row ⊕ 0.01 LM ⊕ 0.5 sentence``: the row and every other weighing term."""
        parts = [row if self.weight("xmover") else f"{row} (XMoverScore left out)"]
        for n in self.active():
            if n != "xmover":
                w = self.weight(n)
                parts.append(TERMS[n].label if w == 1 and TERMS[n].units == "standard"
                             else f"{w:g} {TERMS[n].label}")
        return " ⊕ ".join(parts)

    def flags(self) -> str:
        """The options that score with this setting (``--lm-weight 0.01 --term length=0.5``)."""
        words = (term.flag_words(self.weight(name)) for name, term in TERMS.items())
        return " ".join(w for w in words if w)

    def describe(self, precision: str = "fp32") -> str | None:
        """What the signature records of the registered (not built-in) terms, or None; a term
        that cannot follow a ``precision`` other than fp32 is signed ``@fp32``."""
        parts = (TERMS[n].signature_fields(w, precision).get("terms") for n, w in self.weights)
        return "+".join(p for p in parts if p) or None


def parse_term_weights(specs: Sequence[str] | None, many: bool = False
                       ) -> dict[str, tuple[float, ...]]:
    """``NAME=W`` (``many``: ``NAME=W,W,…``) for registered terms, checked by name."""
    out: dict[str, tuple[float, ...]] = {}
    for spec in specs or ():
        name, sep, values = spec.partition("=")
        flag = "term-weights" if many else "term"
        if not sep:
            raise InputError(f"'{spec}' is not NAME=W", parameter=flag)
        term = get_term(name.strip(), flag)
        if term.own_option:
            raise InputError(f"{term.name} has its own option ({term.flag})", parameter=flag)
        try:
            weights = tuple(float(v) for v in values.split(","))
        except ValueError:
            raise InputError(f"'{values}' is not a number" + (" list" if many else ""),
                             parameter=flag) from None
        if not many and len(weights) != 1:
            raise InputError(f"'{spec}' gives {len(weights)} weights; one", parameter=flag)
        if any(not np.isfinite(w) or w < 0 for w in weights):
            raise InputError(f"weights must be finite and >= 0, got {list(weights)}",
                             parameter=flag)
        if term.name in out:
            raise InputError(f"term '{term.name}' is given twice (give each term once)",
                             parameter=flag)
        out[term.name] = weights
    return out


def setting_grid(axes: Mapping[str, Sequence[float]]) -> list[Setting]:
    """Every combination of the axes' weights (terms in registry order, smaller weights
    first): the points ``choose`` scores."""
    names = [n for n in TERMS if n in axes]
    for n in axes:
        get_term(n, "weights")
    values = [sorted(set(axes[n])) for n in names]
    return [Setting.of(**dict(zip(names, point))) for point in itertools.product(*values)]
