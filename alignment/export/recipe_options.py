"""What a recipe may set. A recipe (``recipe.json``) comes from outside like any data file, so its
``train``, ``score`` and variant option lists are read as data against an allow-list: each
option by its exact name, each value by its kind, every name of a thing to load a plain model
or LM name (never a path), nothing that writes (``--out``, ``--overwrite``, ``--config``,
Lightning's ``--trainer.*``). The build gives the text and the output folder itself."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable

from alignment.errors import InputError
from alignment.names import LANGUAGE

# a model or LM name as a hub or a package gives it: NAME or ORG/NAME, no path of any kind
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?")
_TERM = re.compile(r"([a-z][a-z0-9-]{0,40})=(.+)")
_VARIANT = re.compile(r"[a-z][a-z0-9-]{0,40}")


class RecipeOptionError(ValueError):
    """One option of a recipe's list that it may not set, or a value of the wrong kind."""


def _text(value: str) -> None:
    if not value.strip() or any(c in value for c in "\n\r\0"):
        raise RecipeOptionError("must be one line of text")


def _model_name(value: str) -> None:
    if not MODEL_NAME.fullmatch(value) or ".." in value:
        raise RecipeOptionError("must be a model name (NAME or ORG/NAME), not a path: a recipe "
                                "loads nothing from this machine's folders")


def _number(low: float, kind: type = int, high: float | None = None) -> Callable[[str], None]:
    def check(value: str) -> None:
        try:
            number = kind(value)
        except ValueError:
            raise RecipeOptionError(f"must be {'a whole number' if kind is int else 'a number'}"
                                    f", got {value!r}") from None
        if not math.isfinite(number) or number < low or (high is not None and number > high):
            bound = f"between {low:g} and {high:g}" if high is not None else f">= {low:g}"
            raise RecipeOptionError(f"must be a finite number {bound}, got {value!r}")
    return check


def _choice(*choices: str, known: Callable[[], Iterable[str]] | None = None
            ) -> Callable[[str], None]:
    """A value among ``choices`` and what ``known`` gives: the registry a value names, read
    when a recipe is checked (the registries' modules import torch)."""
    def check(value: str) -> None:
        allowed = (*choices, *(known() if known is not None else ()))
        if value not in allowed:
            raise RecipeOptionError(f"must be {' or '.join(allowed)}, got {value!r}")
    return check


def _poolings() -> Iterable[str]:
    from alignment.encoding.pooling import POOLINGS

    return POOLINGS


def _segmenters() -> Iterable[str]:
    from alignment.data.tokenize import SEGMENTERS

    return SEGMENTERS


def _language(value: str) -> None:
    if not LANGUAGE.fullmatch(value):
        raise RecipeOptionError(f"must be a language code, got {value!r}")


def _align_seed(value: str) -> None:
    if value != "none":
        _number(0)(value)


def _term(value: str) -> None:
    found = _TERM.fullmatch(value)
    if not found:
        raise RecipeOptionError(f"must be NAME=WEIGHT, got {value!r}")
    _number(-1e6, float)(found.group(2))


@dataclass(frozen=True)
class Allowed:
    """One option a recipe may give: how its value is checked (None: a flag without one),
    and whether it may be given more than once (``--term``, a different name each time)."""

    check: Callable[[str], None] | None
    repeatable: bool = False


_WEIGHT = _number(-1e6, float)
# the names a recipe may give of registries above this layer (export may not import xmover or
# evaluation; a test keeps them equal to alignment.evaluation.criteria.CRITERIA and
# alignment.xmover.sentence_map.KINDS)
CRITERIA = ("semantic", "structural", "spectrum", "mmd", "val_p1")
SENTENCE_MAPS = ("orthogonal", "least-squares", "centre")
# the crossalign train options a recipe's train list and variants may set
TRAIN_OPTIONS: dict[str, Allowed] = {
    "--method": Allowed(_text), "--encoder": Allowed(_model_name),
    "--sentence-space": Allowed(_model_name), "--layer": Allowed(_number(-1000)),
    "--pooling": Allowed(_choice(known=_poolings)),
    "--max-sentences": Allowed(_number(1)), "--epochs": Allowed(_number(1)),
    "--criterion": Allowed(_choice(*CRITERIA)),
    "--val-fraction": Allowed(_number(0, float, 0.99)), "--seed": Allowed(_number(0)),
    "--align-seed": Allowed(_align_seed), "--threads": Allowed(_number(1, int, 1024)),
    "--sentence-map-kind": Allowed(_choice("none", *SENTENCE_MAPS)),
    "--sentence-pairs": Allowed(_number(2)), "--sentence-weight": Allowed(_WEIGHT),
    "--sentence-coef": Allowed(_WEIGHT),  # its former spelling (the shipped recipes')
    "--src-lang": Allowed(_language), "--tgt-lang": Allowed(_language),
    "--device": Allowed(_choice("auto", "cpu")), "--verbose": Allowed(None),
    # recipe keys of the word-pair data a recipe may tune (nothing that names a file)
    "--data.segment": Allowed(_choice("auto", "none", known=_segmenters)),
    "--data.batch_size": Allowed(_number(1)), "--data.lowercase": Allowed(_choice("true", "false")),
}
# the scoring options a recipe's score list may set (what its card is measured with)
SCORE_OPTIONS: dict[str, Allowed] = {
    "--xmover-weight": Allowed(_WEIGHT), "--lm": Allowed(_model_name), "--lm-weight": Allowed(_WEIGHT),
    "--sentence-weight": Allowed(_WEIGHT), "--term": Allowed(_term, repeatable=True),
    "--read": Allowed(_choice("given", "written")), "--formula": Allowed(_choice("2020", "2022")),
    "--ngram": Allowed(_number(1, int, 8)), "--layer": Allowed(_number(-1000)),
    "--consensus": Allowed(None),
    # the former spellings of the weights, as recipes written before them give them
    "--xmover-coef": Allowed(_WEIGHT), "--lm-coef": Allowed(_WEIGHT),
    "--sentence-coef": Allowed(_WEIGHT),
}


def check_options(options: list[str] | tuple[str, ...], allowed: dict[str, Allowed],
                  where: str) -> None:
    """Refuse, in one line naming ``where`` (``recipe.json 'train'``) and the option, anything
    in ``options`` that is not an allowed option followed by a value of its kind: another
    spelling (``--out=X``, an abbreviation, a Lightning key), a missing value, one given twice."""
    seen: dict[str, set[str]] = {}
    items = iter(enumerate(options))
    for i, token in items:
        if not isinstance(token, str):
            raise InputError(f"{where}: item {i + 1} must be a string, got {token!r}")
        name = token.split("=", 1)[0]
        if token not in allowed:
            why = (f"write {name} and its value as two items" if name in allowed and "=" in token
                   else "it is not an option a recipe may set (allowed: "
                   + ", ".join(sorted(allowed)) + ")")
            raise InputError(f"{where}: refused '{token}': {why}")
        rule = allowed[token]
        value = ""
        if rule.check is not None:
            step = next(items, None)
            if step is None:
                raise InputError(f"{where}: {token} needs a value")
            value = step[1]
            if not isinstance(value, str) or value.startswith("--"):
                raise InputError(f"{where}: {token} needs a value, got {value!r}")
            try:
                rule.check(value)
            except RecipeOptionError as err:
                raise InputError(f"{where}: {token} {err}") from None
        key = value.split("=", 1)[0] if rule.repeatable else ""
        if key in seen.setdefault(token, set()):
            raise InputError(f"{where}: {token} {key + ' ' if key else ''}is given twice")
        seen[token].add(key)


def check_variant_name(name: object, where: str) -> None:
    """A variant's name is a plain word (it becomes part of an export's name and folder)."""
    if not isinstance(name, str) or not _VARIANT.fullmatch(name):
        raise InputError(f"{where}: variant name {name!r} must be lower-case letters, digits "
                         "and '-'")
