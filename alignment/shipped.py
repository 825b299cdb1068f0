"""Where what ships with crossalign lies: the exports and the recipes (``exports/``,
``recipes/``) beside the packages in a clone, and inside the package (``alignment/shipped_data/``)
once a wheel is installed, so that a name finds them either way."""
from __future__ import annotations

from pathlib import Path

from alignment.catalogue import check_choice

SHIPPED_KINDS = ("exports", "recipes")
_PACKAGE = Path(__file__).resolve().parent
_CLONE = _PACKAGE.parent  # a clone holds pyproject.toml beside the packages


def shipped_folder(kind: str) -> Path:
    """The folder of the shipped ``kind`` (``exports`` or ``recipes``): the clone's, where this
    package runs from a clone, else the installed package's copy (it may not exist)."""
    check_choice(kind, SHIPPED_KINDS, "shipped kind", "kind")
    if (_CLONE / "pyproject.toml").is_file() and (_CLONE / kind).is_dir():
        return _CLONE / kind
    return _PACKAGE / "shipped_data" / kind


def shipped_recipe(name: str) -> Path | None:
    """The shipped recipe called ``name`` (``bible-es-en/clp``, with or without ``.yaml``), or
    None; only a plain relative name inside the recipes folder is looked up."""
    root = shipped_folder("recipes")
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        return None
    for candidate in (root / name, root / f"{name}.yaml"):
        if candidate.suffix == ".yaml" and candidate.is_file():
            return candidate
    return None


def with_shipped_recipes(argv: list[str]) -> list[str]:
    """``argv`` with each ``--config NAME`` that is no file but names a shipped recipe
    (``bible-es-en/clp``) given that recipe's path: the recipes work by name from a wheel."""
    out = list(argv)
    for k, arg in enumerate(out):
        flag, eq, value = arg.partition("=")
        if flag != "--config" or (not eq and k + 1 >= len(out)):
            continue
        value = value if eq else out[k + 1]
        found = None if Path(value).exists() else shipped_recipe(value)
        if found is not None:
            out[k if eq else k + 1] = f"--config={found}" if eq else str(found)
    return out
