"""How much of an output is in its target language at all. An MT system that copies its source
(a reference, a title, a name list) or falls into another language writes text that every
similarity term rewards — the copy is *like* the source — while its readers score it near zero.
The share of the output's words that are plausibly the target's catches it without a model:
a word is off target when it is copied from the source, written outside the target's script
(where the language has one of its own), or another language's function word."""
from __future__ import annotations

import functools
import re

import numpy as np

from alignment.data.function_words import STOP_WORDS

from .term import register_term
from .term import Term

# the script a language is written in, where it is not the Latin alphabet
SCRIPTS: dict[str, str] = {
    "zh": r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]",
    "ja": r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]",
    "ko": r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]",
    "ru": r"[\u0400-\u04ff]", "kk": r"[\u0400-\u04ff]", "uk": r"[\u0400-\u04ff]",
    "bg": r"[\u0400-\u04ff]", "ar": r"[\u0600-\u06ff]", "ne": r"[\u0900-\u097f]",
    "hi": r"[\u0900-\u097f]", "si": r"[\u0d80-\u0dff]", "gu": r"[\u0a80-\u0aff]",
    "th": r"[\u0e00-\u0e7f]", "el": r"[\u0370-\u03ff]", "he": r"[\u0590-\u05ff]",
}
_LATIN = r"[A-Za-z\u00c0-\u024f]"
# scripts written without spaces: each character is a word of its own here
_CHARACTER_WISE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
RULE = "words1"  # what the signature records of these rules (bump when they change)


def words(text: str) -> list[str]:
    """The text's words, lowercased: letter runs, split where the script changes, and each
    Chinese or Japanese character alone (those scripts put no spaces between words)."""
    out: list[str] = []
    for run in _LETTERS.findall(text):
        current = ""
        for ch in run:
            if _CHARACTER_WISE.match(ch):
                if current:
                    out.append(current)
                out.append(ch)
                current = ""
            elif current and bool(re.match(_LATIN, ch)) != bool(re.match(_LATIN, current[-1])):
                out.append(current)
                current = ch
            else:
                current += ch
        if current:
            out.append(current)
    return [w.lower() for w in out]


def _base(language: str | None) -> str:
    return (language or "").lower().split("-")[0].split("_")[0]


@functools.lru_cache(maxsize=None)
def _rules(target: str) -> tuple[frozenset[str], re.Pattern | None, frozenset[str]]:
    """A target's rules, made once: (its function words, its script's pattern or None, the
    other listed languages' function words that are not its own; none without a list)."""
    own = STOP_WORDS.get(target, frozenset())
    script = re.compile(SCRIPTS[target]) if target in SCRIPTS else None
    foreign = frozenset().union(*(w for lang, w in STOP_WORDS.items() if lang != target)) - own \
        if own else frozenset()
    return own, script, foreign


def target_share(source: str, output: str, target: str | None) -> float:
    """The share of ``output``'s words that are plausibly ``target``'s: not copied from
    ``source`` (a target function word may be), in the target's script where it has one, and
    not a function word of another listed language (where the target has a list). An output
    with no words (numbers, punctuation) counts as on target: there is nothing to translate."""
    out = words(output)
    if not out:
        return 1.0
    own, script, foreign = _rules(_base(target))
    # a Chinese character is shared by Chinese and Japanese text, not copied
    copied = {w for w in words(source) if not _CHARACTER_WISE.match(w)} - own
    off = sum(w in copied or w in foreign or (script is not None and not script.match(w))
              for w in out)
    return 1.0 - off / len(out)


class TargetLanguageShare:
    """The ``target-language`` term's values: ``target_share`` of each output (no model)."""

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None) -> np.ndarray:
        target = languages[1] if languages else None
        return np.array([target_share(s, h, target) for s, h in zip(sources, hypotheses)],
                        dtype=np.float64)


register_term(Term("target-language", "target language", "--term target-language=W",
                   (0.0, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "the share of the output's words in the target language: not copied from the "
                   "source, in the target's script, not another language's function word (an "
                   "untranslated output scores 0)", ident=f"target-share+{RULE}",
                   compute=TargetLanguageShare()))
