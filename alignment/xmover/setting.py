"""A scoring setting: the terms a score adds up and the weight of each. The one place where
terms are registered (``register_term``), combined (``Setting.combine``), named in rows, flags
and signatures, and laid out as a grid for ``crossalign choose`` (``setting_grid``)."""
from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from alignment.catalogue import unknown_name
from alignment.errors import InputError


@dataclass(frozen=True)
class Term:
    """One term of a score. ``units``: ``raw`` (weight × value added as it is) or ``standard``
    (the raw sum and the term each standardised within a language pair, then added: terms on
    other scales, the consensus). ``compute(sources, hypotheses, languages)`` gives the values
    of a registered term; the scorer computes the built-in ones (XMoverScore, LM, sentence)."""

    name: str
    label: str  # how a row names it ("LM" in "unmapped ⊕ 0.01 LM")
    flag: str  # the option that sets its weight
    grid: tuple[float, ...]  # the weights ``choose`` searches
    about: str  # one line: what the term measures (cards, --help)
    default: float = 0.0
    units: str = "raw"
    ident: str = ""  # what the signature records of it (a registered term's version)
    compute: Callable[..., np.ndarray] | None = field(default=None, compare=False)
    # whether ``compute`` takes ``context=TermContext``: it then runs on the scorer's device and
    # in its precision; a term that does not computes as its ident says (signed ``@fp32``)
    contextual: bool = False


@dataclass(frozen=True)
class TermContext:
    """What a scorer gives a contextual term: the device and precision it runs in (the
    signature's ``prec:`` then holds for the term too)."""

    device: str = "cpu"
    precision: str = "fp32"


TERMS: dict[str, Term] = {}


def register_term(term: Term) -> Term:
    """Make ``term`` a term of every setting: ``score``, ``evaluate``, ``choose`` and cards
    then know it by name (``--term NAME=W``, ``--term-weights NAME=W,W``)."""
    if term.units not in ("raw", "standard"):
        raise InputError(f"units must be raw or standard, got {term.units!r}", parameter="units")
    if term.name in TERMS and TERMS[term.name] != term:
        raise InputError(f"a term '{term.name}' is already registered", parameter="term")
    TERMS[term.name] = term
    return term


# terms renamed, and what they are called now (the old name works, with a note once)
RENAMED = {"gemma-src": "gemma-given-source", "gemma-source": "gemma-source-alone"}
_NOTED: set[str] = set()


def get_term(name: str, parameter: str = "term") -> Term:
    if name in RENAMED:
        if name not in _NOTED:
            _NOTED.add(name)
            print(f"crossalign: note: the term {name} is now called {RENAMED[name]} (the old "
                  "name still works)", file=sys.stderr)
        name = RENAMED[name]
    if name not in TERMS:
        raise unknown_name("term", name, TERMS, parameter)
    return TERMS[name]


BUILT_IN = ("xmover", "lm", "sentence", "consensus")
register_term(Term("xmover", "XMoverScore", "--xmover-coef", (1.0,),
                   "XMoverScore: the transport of mapped token vectors", default=1.0))
register_term(Term("lm", "LM", "--lm-coef", (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "the LM's mean token log-probability of the MT output"))
register_term(Term("sentence", "sentence", "--sentence-coef", (0.0, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "the cosine of source and output sentence embeddings (through the sentence "
                   "map where the export has one)"))
register_term(Term("consensus", "consensus", "--consensus", (0.0, 1.0),
                   "chrF against the other systems' outputs of the same source (no reference)",
                   units="standard"))


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
        """The options that score with this setting (``--lm-coef 0.01 --term length=0.5``)."""
        out = []
        for name, term in TERMS.items():
            w = self.weight(name)
            if w == term.default and name != "sentence":
                continue
            if name == "consensus":
                out.append("--consensus")
            elif name in BUILT_IN:
                out.append(f"{term.flag} {w:g}")
            else:
                out.append(f"--term {name}={w:g}")
        return " ".join(out)

    def describe(self, precision: str = "fp32") -> str | None:
        """What the signature records of the registered (not built-in) terms, or None; a term
        that cannot follow a ``precision`` other than fp32 is signed ``@fp32``."""
        extra = [f"{n}:{TERMS[n].ident or n}"
                 f"{'' if precision == 'fp32' or TERMS[n].contextual else '@fp32'}*{w:g}"
                 for n, w in self.weights if w and n not in BUILT_IN]
        return "+".join(extra) or None


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
        if term.name in BUILT_IN:
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
