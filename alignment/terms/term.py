"""What a term is, and the one registry of terms (``TERMS``): one contract for every term a
score adds up — XMoverScore, the LMs, the sentence term, the consensus and the registered ones
alike, each under its name (former names still work, with a note). A term has a name, a label,
a grid of weights for ``choose``, an identity (what a signature and a scoring configuration
record of it) and ``values(batch, runtime)``: one number a pair of a ``Batch``. A term that
reads what a scorer loaded (its encoder and map, its LM, its sentence map) is bound to it
first (``bind``); the rest compute from the text alone."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from alignment.catalogue import Registry
from alignment.errors import InputError


@dataclass(frozen=True)
class Batch:
    """What a term reads: the sources as given, the MT outputs as the scorer reads them, the
    pair's languages (source, target) where known, and — for the consensus — the other systems'
    outputs of each source."""

    sources: list[str]
    outputs: list[str]
    languages: tuple[str, str] | None = None
    others: list[list[str]] | None = None


@dataclass
class Runtime:
    """How a scorer and its terms run (not what they compute): the device and precision
    (``None``: a GPU if there is one; the setting's precision, else fp32), the batch size, the
    processes solving transport problems (``None``: every core above two, else one), progress
    bars, what it keeps beyond a call (``cache``: encodings and LM scores in memory and on
    disk, the LMs its terms loaded), and what one call keeps for its terms (``kept``: a side
    computed once for several systems, keyed by the term and its inputs; ``seconds``: each
    stage's time; ``truncated``: the 1-based lines cut to the encoder's length, by side)."""

    device: str | None = "cpu"
    precision: str | None = "fp32"
    batch_size: int = 64
    jobs: int | None = 1
    progress: bool = False
    cache: Any = field(default_factory=lambda: _cache())  # alignment.xmover.reuse.Cache
    kept: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    truncated: dict = field(default_factory=dict)

    @classmethod
    def of(cls, device: str | None = None, precision: str | None = None, batch_size: int = 64,
           jobs: int | None = None, reuse: Path | None = None, keep_values: bool = True,
           remember: bool = False) -> "Runtime":
        """A scorer's runtime, each value left out chosen for this machine or the setting;
        ``reuse``: a folder keeping encodings and LM scores across runs; ``keep_values``: the
        slow terms' values kept across runs (the default); ``remember``: lists of sentences
        kept in memory for this run (rows of one table share them)."""
        if batch_size < 1:
            raise InputError(f"must be >= 1, got {batch_size}", parameter="batch-size")
        return cls(device, precision, batch_size, jobs,
                   cache=_cache(reuse, keep_values, remember))

    def call(self, device: str, precision: str, jobs: int, progress: bool) -> "Runtime":
        """One call's runtime: this one's with the choices made, nothing kept yet."""
        return replace(self, device=device, precision=precision, jobs=jobs, progress=progress,
                       kept={}, seconds={}, truncated={})

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``'s result, computed once for ``key`` in this runtime."""
        if key not in self.kept:
            self.kept[key] = compute()
        return self.kept[key]


def _cache(folder: Path | None = None, keep_values: bool = True, remember: bool = False):
    from alignment.xmover.reuse import Cache

    return Cache(folder, remember=remember) if keep_values else Cache(folder, None, remember)


TermContext = Runtime  # its former name: what a contextual ``compute`` gets as ``context``


@dataclass(frozen=True)
class Term:
    """One term of a score. ``units``: ``raw`` (weight × value added as it is) or ``standard``
    (the raw sum and the term each standardised within a language pair, then added: terms on
    other scales, the consensus). ``compute(sources, outputs, languages)`` gives the values of a
    term made from a function (a plug-in's); ``contextual``: it takes ``context=Runtime`` and so
    runs in the runtime's precision (a term that does not is signed ``@fp32``). A term class
    overrides ``values`` (and ``bind`` where it reads what a scorer loaded)."""

    name: str
    label: str  # how a row names it ("LM" in "unmapped ⊕ 0.01 LM")
    flag: str  # the option that sets its weight
    grid: tuple[float, ...]  # the weights ``choose`` searches
    about: str  # one line: what the term measures (cards, --help)
    default: float = 0.0
    units: str = "raw"
    ident: str = ""  # what the signature records of it (its model, revision, prompt, rules)
    compute: Callable[..., np.ndarray] | None = field(default=None, compare=False)
    contextual: bool = False
    # what a bound term reads: the scorer that loaded its encoder, map or LM (``bind``)
    model: Any = field(default=None, compare=False, repr=False)
    # its weight has an option of its own (``--lm-weight``, not ``--term NAME=W``) and the
    # signature a field of its own (XMoverScore, the LM, the sentence term, the consensus)
    own_option: bool = False
    reads_others: bool = False  # it reads a batch's ``others`` (the consensus)

    def identity(self) -> str:
        """What a signature and a scoring configuration record of this term."""
        return self.ident or self.name

    def flag_words(self, weight: float) -> str | None:
        """The options that score with this term at ``weight`` (None: its default needs none)."""
        return None if weight == self.default else f"--term {self.name}={weight:g}"

    def follows_precision(self) -> bool:
        """Whether the term computes in the runtime's precision (else in fp32)."""
        return self.contextual

    def bind(self, scorer: Any) -> "Term":
        """This term reading what ``scorer`` loaded; a term of the text alone is itself."""
        return self

    def default_weight(self, scorer: Any) -> float:
        """The weight this term has in ``scorer`` when no setting or option gives one."""
        return self.default

    def available(self, scorer: Any) -> bool:
        """Whether ``scorer`` can compute this term at all (a term of what it loaded needs it)."""
        return True

    def signature_fields(self, weight: float, precision: str = "fp32") -> dict[str, object]:
        """What this (bound) term puts in an XMoverScore signature at ``weight``: a term of its
        own option its own fields (``XMoverSignature``'s), every other one its part of
        ``terms:`` — its identity, ``@fp32`` where it cannot follow ``precision``, its
        weight (``Setting.describe`` joins them); ``after``: a part signed after all the rest
        (`` ⊕ …``, a term that changes how the others add up)."""
        if self.own_option or not weight:
            return {}
        tag = "" if precision == "fp32" or self.follows_precision() else "@fp32"
        return {"terms": f"{self.name}:{self.identity()}{tag}*{weight:g}"}

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        """One value a pair of ``batch``, as float64."""
        if self.compute is None:
            raise NotImplementedError(f"the term {self.name} defines no values")
        extra = {"context": runtime} if self.contextual else {}
        return np.asarray(self.compute(list(batch.sources), batch.outputs, batch.languages,
                                       **extra), dtype=np.float64)


@dataclass(frozen=True)
class ScorerTerm(Term):
    """A term computed from what the scorer loaded (its encoder and map, its LM, its sentence
    map): bound to it, and weighed by an option of its own (``--lm-weight W``)."""

    def bind(self, scorer: Any) -> "ScorerTerm":
        return replace(self, model=scorer)

    def flag_words(self, weight: float) -> str | None:
        return None if weight == self.default else f"{self.flag} {weight:g}"


TERMS: Registry[Term] = Registry("term")


def register_term(term: Term) -> Term:
    """Make ``term`` a term of every setting: ``score``, ``evaluate``, ``choose`` and cards
    then know it by name (``--term NAME=W``, ``--term-weights NAME=W,W``). Registering the
    same term again is a no-op; another term under a taken name is refused."""
    if term.units not in ("raw", "standard"):
        raise InputError(f"units must be raw or standard, got {term.units!r}", parameter="units")
    if term.name in TERMS:
        if TERMS[term.name] != term:
            raise InputError(f"a term '{term.name}' is already registered", parameter="term")
        return TERMS[term.name]
    return TERMS.add(term.name, term)


def get_term(name: str, parameter: str = "term") -> Term:
    """The term called ``name`` (or a former name of it); unknown: one error naming the known."""
    _load_all()
    return TERMS.lookup(name, parameter)


def _load_all() -> None:
    """Every term module registered (importing the package ``alignment.terms`` does it)."""
    import alignment.terms  # noqa: F401
