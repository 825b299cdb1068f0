"""Names that become parts of file names — language codes, corpus names — checked against a
strict pattern, and every path built from them checked to stay inside its output folder."""
from __future__ import annotations

import re
from pathlib import Path

from alignment.errors import InputError

# ISO 639 codes with optional script/region subtags: es, eng, pt-BR, zh_Hans, src
LANGUAGE = re.compile(r"[A-Za-z]{2,8}(?:[_-][A-Za-z0-9]{1,8}){0,3}")
# letters, digits and . _ + - ; not starting with a dot; at most 100 characters
CORPUS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")


def check_language(code: object, parameter: str = "src_lang", path: str | Path | None = None) -> str:
    """``code`` if it is a language code (``es``, ``pt-BR``), else an InputError naming it."""
    if not isinstance(code, str) or not LANGUAGE.fullmatch(code):
        raise InputError(f"{code!r} is not a language code (letters, as in es, eng or pt-BR)",
                         parameter=None if path else parameter, path=path)
    return code


def check_corpus_name(name: object, parameter: str = "corpus",
                      path: str | Path | None = None) -> str:
    """``name`` if it is a plain corpus name (letters, digits, ``. _ + -``; no ``..``)."""
    if not isinstance(name, str) or not CORPUS.fullmatch(name) or ".." in name:
        raise InputError(f"{name!r} is not a corpus name (letters, digits and . _ + - only, "
                         "not starting with a dot, no '..')",
                         parameter=None if path else parameter, path=path)
    return name


def corpus_name_from(text: str) -> str:
    """A valid corpus name made from ``text`` (a file's stem): other characters become ``_``."""
    name = re.sub(r"[^A-Za-z0-9._+-]", "_", text).replace("..", "_").lstrip(".")[:100]
    return name if name and CORPUS.fullmatch(name) else "corpus"


def inside(folder: str | Path, name: str) -> Path:
    """``folder / name``, refused unless it resolves to a path inside ``folder``."""
    folder = Path(folder)
    path = folder / name
    root = folder.resolve()
    if Path(name).is_absolute() or root not in path.resolve().parents:
        raise InputError(f"the file name {name!r} would be written outside {folder}",
                         parameter="name")
    return path
