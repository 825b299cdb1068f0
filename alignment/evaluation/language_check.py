"""A cheap, label-free check of which language a text is in: the share of its words that are
among a language's commonest function words. Enough to notice swapped ``--src``/``--hyp``
files; not a language identifier."""
from __future__ import annotations

import re

from alignment.data.function_words import STOP_WORDS

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def stop_word_share(lines: list[str], lang: str, limit: int = 2000) -> float | None:
    """Share of the words in the first ``limit`` lines that are ``lang``'s function words;
    None when the language has no list."""
    words = STOP_WORDS.get(lang.lower().split("-")[0].split("_")[0])
    if words is None:
        return None
    tokens = [w.lower() for line in lines[:limit] for w in _WORD.findall(line)]
    return sum(t in words for t in tokens) / len(tokens) if tokens else 0.0


def looks_like_other(lines: list[str], expected: str, other: str, margin: float = 0.05) -> bool:
    """Whether ``lines`` look clearly more like ``other`` than like ``expected`` (both languages
    must have lists; otherwise False: no claim)."""
    want, got = stop_word_share(lines, expected), stop_word_share(lines, other)
    if want is None or got is None or expected.lower() == other.lower():
        return False
    return got >= 0.1 and got > want + margin
