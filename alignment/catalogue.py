"""Named catalogues (the metrics, the human-judgment benchmarks): a thing is added under its
name once, and looking up a name that is not there is one error listing the known names."""
from __future__ import annotations

from typing import TypeVar

from alignment.errors import InputError

T = TypeVar("T")


def add_named(catalogue: dict[str, T], kind: str, name: str, item: T) -> T:
    """Add ``item`` as ``name``; a name may be added once (a programming error otherwise)."""
    if name in catalogue:
        raise ValueError(f"{kind} '{name}' is already registered")
    catalogue[name] = item
    return item


def look_up(catalogue: dict[str, T], kind: str, name: str) -> T:
    """The ``kind`` called ``name``, or an InputError (parameter ``kind``) naming the known ones."""
    if name not in catalogue:
        raise InputError(f"unknown {kind} '{name}' (known: {', '.join(sorted(catalogue))})",
                         parameter=kind)
    return catalogue[name]
