"""The one registry of terms: every term a score can add up — XMoverScore, the LMs, the sentence
term, the consensus and the registered ones alike — under its name (former names still work,
with a note). ``score``, ``evaluate``, ``choose``, scoring configurations and signatures know a
term from here; ``alignment.terms`` fills it, one module a term."""
from __future__ import annotations

from alignment.catalogue import Registry
from alignment.errors import InputError

from .term import Term

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
    """Every term module registered (importing ``alignment.terms`` does it)."""
    import alignment.terms  # noqa: F401
