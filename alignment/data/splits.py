"""The rules every X–en corpus shares: pairs named by ISO codes, a seeded split by id (an item's
split depends on its id and the seed alone), and folders never rebuilt with other settings."""
from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

from alignment.errors import InputError


def parse_pair(pair: str) -> str:
    """The source language of an ``xx-en`` pair (ISO 639-1 codes); anything else is refused."""
    src, _, tgt = pair.partition("-")
    if tgt != "en" or not re.fullmatch(r"[a-z]{2,3}", src) or src == "en":
        raise InputError(f"a pair is SOURCE-en with ISO 639 codes (es-en, de-en, ny-en), got "
                         f"'{pair}'", parameter="pair")
    return src


def parse_any_pair(pair: str) -> tuple[str, str]:
    """The two languages of an ``xx-yy`` pair (ISO 639 codes, two different ones)."""
    src, _, tgt = pair.partition("-")
    if not (re.fullmatch(r"[a-z]{2,3}", src) and re.fullmatch(r"[a-z]{2,3}", tgt)) or src == tgt:
        raise InputError(f"a pair is SOURCE-TARGET with two different ISO 639 codes (de-en, "
                         f"ru-de, de-zh), got '{pair}'", parameter="pair")
    return src, tgt


def check_split_settings(n_test: int, n_dev: int, max_ratio: float | None = None,
                         min_words: int | None = None) -> None:
    """Every corpus builder's counts, before anything is read: whole split sizes >= 0 (a
    negative one would make held-out ids training ids too), a finite length ratio >= 1, a
    word minimum >= 1 — each refused naming its own option."""
    for name, value in (("n-test", n_test), ("n-dev", n_dev)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"must be a whole number >= 0, got {value!r}", parameter=name)
    if max_ratio is not None and not (isinstance(max_ratio, (int, float))
                                      and math.isfinite(max_ratio) and max_ratio >= 1):
        raise InputError(f"must be a finite number >= 1 (a length ratio), got {max_ratio!r}",
                         parameter="max-ratio")
    if min_words is not None and (not isinstance(min_words, int) or min_words < 1):
        raise InputError(f"must be a whole number >= 1, got {min_words!r}", parameter="min-words")


def split_ids(ids: list[str], n_test: int, n_dev: int, seed: int) -> dict[str, list[int]]:
    """Deterministic split by verse id: order ids by a seeded hash; first test, then dev, rest train.

    A verse's split depends only on its id and the seed, not on which other verses exist."""
    check_split_settings(n_test, n_dev)
    if n_test + n_dev >= len(ids):
        raise InputError(f"test ({n_test}) + dev ({n_dev}) leave no training verses of {len(ids)}",
                         parameter="n_test")
    order = sorted(range(len(ids)),
                   key=lambda k: hashlib.sha256(f"{seed}:{ids[k]}".encode()).hexdigest())
    return {"test": sorted(order[:n_test]), "dev": sorted(order[n_test:n_test + n_dev]),
            "train": sorted(order[n_test + n_dev:])}


def check_corpus_folder(out: Path, settings: dict) -> None:
    """Refuse to build over files that are not this corpus: a corpus of other settings (its
    held-out verses would silently become training verses) or files that are no corpus."""
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a folder", parameter="out")
    if not out.is_dir() or not any(out.iterdir()):
        return
    try:
        built = json.loads((out / "report.json").read_text(encoding="utf-8"))["settings"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(f"{out} holds files but no corpus report.json; choose a new folder",
                         parameter="out") from None
    if built != settings:
        differ = ", ".join(f"{k} {built.get(k)!r} (asked: {v!r})" for k, v in settings.items()
                           if built.get(k) != v)
        raise InputError(f"{out} holds a corpus built with other settings ({differ}); "
                         "rebuilding it would move verses between its splits: choose a new "
                         "folder", parameter="out")


def write_splits(corpus, out: Path, language: str, n_test: int, n_dev: int, seed: int,
                 target: str = "en") -> dict[str, int]:
    """``{split}.XX`` / ``{split}.YY`` / ``{split}.ids`` of an X–Y corpus (Y English unless
    ``target`` says) in ``out`` (each written atomically), split by ``split_ids``; the size of
    each split."""
    from alignment.atomic import write_text

    from .corpus import write_parallel

    sizes = {}
    for split, idx in split_ids(corpus.ids, n_test, n_dev, seed).items():
        part = corpus.subset(idx, f"{corpus.name}-{split}")
        write_parallel(part, out / f"{split}.{language}", out / f"{split}.{target}")
        write_text(out / f"{split}.ids", "".join(i + "\n" for i in part.ids))
        sizes[split] = len(part)
    return sizes
