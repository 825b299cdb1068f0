"""Named things of one kind (methods, metrics, benchmarks, criteria, …), one registry type for
every named lookup: a thing is added once under its name and its aliases (a duplicate is a
programming error), a former name still works and leaves a deprecation note, and an unknown
name is one InputError with one wording — the known names and the close matches."""
from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar

from alignment.errors import InputError

T = TypeVar("T")


class FormerNameWarning(UserWarning):
    """A thing was asked for by its former name (which still works)."""


def unknown_name(kind: str, name: object, known: Iterable[str], parameter: str | None = None,
                 context: str = "", advice: str = "", similar: Iterable[str] = ()
                 ) -> InputError:
    """The one error for a name that is not there: ``unknown KIND 'x' (known: a, b; did you
    mean c?)``, after ``context`` (e.g. the whole string the name came from), with ``advice``
    (what else the value may be) inside the parentheses; ``similar`` (aliases, former names)
    count for the close matches too."""
    known = sorted(str(k) for k in known)
    text = " ".join(str(name).split())
    close = difflib.get_close_matches(text, [*known, *similar], n=3, cutoff=0.6) \
        if len(text) <= 200 else []
    name = text if len(text) <= 80 else f"{text[:79]}… ({len(text):,} characters)"
    hint = (f"; {advice}" if advice else "") + (
        f"; did you mean {' or '.join(close)}?" if close else "")
    return InputError(f"{context}unknown {kind} '{name}' (known: {', '.join(known) or 'none'}"
                      f"{hint})", parameter=parameter or kind)


def check_choice(value: str, choices: Iterable[str], kind: str,
                 parameter: str | None = None) -> str:
    """``value`` if it is one of ``choices``, else ``unknown_name``'s error."""
    choices = tuple(choices)
    if value not in choices:
        raise unknown_name(kind, value, choices, parameter)
    return value


class Registry(Mapping[str, T]):
    """``kind``'s things by name. Reading it as a mapping sees canonical names only; ``lookup`` and
    ``canonical`` also take aliases (other spellings, kept silently) and former names (which
    warn once with their new name)."""

    def __init__(self, kind: str, parameter: str | None = None) -> None:
        self.kind, self.parameter = kind, parameter or kind
        self._items: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._former: dict[str, str] = {}

    @classmethod
    def of(cls, kind: str, items: dict[str, T], parameter: str | None = None) -> "Registry[T]":
        """A registry holding ``items`` (each checked once, as ``add`` does)."""
        registry: Registry[T] = cls(kind, parameter)
        for name, item in items.items():
            registry.add(name, item)
        return registry

    def add(self, name: str, item: T, aliases: Iterable[str] = ()) -> T:
        """Register ``item`` as ``name`` (and ``aliases``); a name taken is refused."""
        for n in (name, *aliases):
            if self.taken(n):
                raise ValueError(f"{self.kind} '{n}' is already registered")
        self._items[name] = item
        self._aliases.update({a: name for a in aliases})
        return item

    def remove(self, name: str) -> T:
        """Take ``name`` and its aliases out again (a test's or a plug-in's registration)."""
        item = self._items.pop(name)
        for table in (self._aliases, self._former):
            for alias in [a for a, n in table.items() if n == name]:
                del table[alias]
        return item

    def rename(self, former: str, name: str) -> None:
        """``former`` is ``name``'s old name: it still works, with a deprecation note."""
        if self.taken(former):
            raise ValueError(f"{self.kind} '{former}' is already registered")
        self._former[former] = name

    def taken(self, name: str) -> bool:
        return name in self._items or name in self._aliases or name in self._former

    def canonical(self, name: str, parameter: str | None = None) -> str:
        """The registered name ``name`` stands for; unknown: ``unknown_name``'s error."""
        if name in self._items:
            return name
        if name in self._aliases:
            return self._aliases[name]
        if name in self._former:
            new = self._former[name]
            warnings.warn(f"{self.kind} '{name}' is now '{new}' (the old name still works)",
                          FormerNameWarning, stacklevel=3)
            return new
        raise unknown_name(self.kind, name, self._items, parameter or self.parameter,
                           similar=self.spellings())

    def lookup(self, name: str, parameter: str | None = None) -> T:
        """The thing called ``name`` (or an alias or former name of it); unknown: the error
        (``get`` stays the mapping's: None for a name not registered)."""
        return self._items[self.canonical(name, parameter)]

    def spellings(self) -> list[str]:
        """Every name it answers to besides the registered ones: aliases, former names."""
        return [*self._aliases, *self._former]

    def former_names(self) -> dict[str, str]:
        return dict(self._former)

    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def __delitem__(self, name: str) -> None:
        self.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._items)})"
