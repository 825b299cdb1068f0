"""Bilingual lexicons: TSV word pairs and FreeDict dictionaries (dictd ``.index`` + ``.dict.dz``)."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

from .corpus import read_lines
from alignment.errors import InputError

Lexicon = dict[str, list[str]]  # source word -> translations, most common sense first

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _dictd_number(text: str, path: Path, line: int) -> int:
    value = 0
    for ch in text:
        k = _B64.find(ch)
        if k < 0:
            raise InputError(f"bad base64 number '{text}' in dictd index", path=path, line=line)
        value = value * 64 + k
    return value


def read_tsv_lexicon(path: str | Path) -> Lexicon:
    """``src<TAB>tgt`` per line; repeated sources collect several translations in order."""
    lex: Lexicon = {}
    for number, line in enumerate(read_lines(path), start=1):
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
            raise InputError("expected 'source<TAB>target'", path=path, line=number)
        lex.setdefault(parts[0].strip(), []).append(parts[1].strip())
    return lex


def read_freedict(index_path: str | Path, dict_path: str | Path | None = None) -> Lexicon:
    """Read a FreeDict dictionary; translations keep sense order, database entries are skipped."""
    index_path = Path(index_path)
    dict_path = Path(dict_path) if dict_path else index_path.with_suffix(".dict.dz")
    if not dict_path.is_file():
        raise InputError("dictionary data file not found", path=dict_path)
    data = gzip.open(dict_path).read() if dict_path.suffix == ".dz" else dict_path.read_bytes()
    lex: Lexicon = {}
    for number, line in enumerate(read_lines(index_path), start=1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError("expected 'headword<TAB>offset<TAB>length'", path=index_path, line=number)
        head, offset, length = parts[0], _dictd_number(parts[1], index_path, number), \
            _dictd_number(parts[2], index_path, number)
        if head.startswith("00database") or head.startswith("00-database"):
            continue
        entry = data[offset:offset + length].decode("utf-8", errors="replace").splitlines()
        senses: list[str] = []
        for body in entry[1:]:
            body = re.sub(r"^\s*\d+\.\s*", "", body)
            senses.extend(t.strip() for t in body.split(",") if t.strip())
        if senses:
            lex.setdefault(head, []).extend(senses)
    return lex


def read_lexicon(path: str | Path) -> Lexicon:
    """A lexicon by file type: ``.index`` (FreeDict/dictd) or TSV."""
    path = Path(path)
    return read_freedict(path) if path.suffix == ".index" else read_tsv_lexicon(path)


def single_word_pairs(lex: Lexicon, lowercase: bool = True) -> Lexicon:
    """Only one-word headwords and one-word translations (what word-level BLI can test)."""
    out: Lexicon = {}
    for src, tgts in lex.items():
        s = src.lower() if lowercase else src
        if " " in s:
            continue
        keep = [t.lower() if lowercase else t for t in tgts if " " not in t and t.isalpha()]
        if keep:
            out.setdefault(s, [])
            out[s].extend(t for t in keep if t not in out[s])
    return out
