"""A fast_align-compatible word tokenizer; the same words feed the aligner and the encoder's pooling."""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from alignment.catalogue import unknown_name

# A word is a run of letters/digits/marks (with inner apostrophes or hyphens), or any single
# other non-space character (punctuation is split off, one token per character).
# v2: invisible format characters are dropped (v1 made each one a word without a vector)
TOKENIZER_ID = "crossalign-word-v2"
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\ufe00-\ufe0f]")
_TOKEN = re.compile(r"[^\W_](?:[^\W_]|['’\-](?=[^\W_]))*|[^\w\s]|_", re.UNICODE)


# Chinese (Han) characters: a run of them is one "word" to the pattern above (Chinese is written
# without spaces), so a whole clause would be aligned as one word; a segmenter splits such runs.
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
SEGMENTERS = ("jieba", "marks")
# what segment="auto" uses for a language: jieba for Chinese; for scripts whose vowel signs and
# viramas are combining marks (Devanagari, Sinhala, the other Brahmic scripts), ``marks``
# keeps those marks inside their word — the pattern above, like str.isalnum, counts them as
# no letter and would cut a Nepali or Sinhala word at every vowel sign
SEGMENTED_LANGUAGES = {"zh": "jieba", **{lang: "marks" for lang in (
    "ne", "si", "hi", "mr", "bn", "as", "pa", "gu", "or", "ta", "te", "kn", "ml", "th", "lo",
    "km", "my")}}
_MARK = "".join(chr(c) for c in range(0x300, 0x20000)
                if unicodedata.category(chr(c)).startswith("M"))
_LETTER = f"(?:[^\\W_]|[{re.escape(_MARK)}])"
_TOKEN_MARKS = re.compile(f"{_LETTER}(?:{_LETTER}|['’\\-](?={_LETTER}))*|[^\\w\\s]|_", re.UNICODE)


@dataclass(frozen=True)
class Tokenizer:
    """Whitespace + punctuation tokenizer with optional lowercasing; NFC-normalised output.
    ``segment="jieba"`` splits runs of Chinese characters into words with jieba's default
    segmentation (the name then reads ``crossalign-word-v2+jieba``); ``segment="marks"`` keeps
    combining marks (vowel signs, viramas) inside their words (``crossalign-word-v2+marks``)."""

    lowercase: bool = False
    segment: str | None = None

    def __post_init__(self) -> None:
        if self.segment is not None and self.segment not in SEGMENTERS:
            raise unknown_name("word segmenter", self.segment, SEGMENTERS, "segment")

    def __call__(self, sentence: str) -> list[str]:
        # invisible format characters (zero-width space/joiners, direction marks, BOM) and
        # variation selectors carry no word: dropped, so they never become words of their own
        text = _INVISIBLE.sub("", unicodedata.normalize("NFC", sentence))
        if self.lowercase:
            text = text.lower()
        if self.segment == "marks":
            return _TOKEN_MARKS.findall(text)
        tokens = _TOKEN.findall(text)
        if self.segment is None:
            return tokens
        return [w for t in tokens for w in (_jieba(t) if _HAN.search(t) else (t,))]

    def settings(self) -> dict:
        """What changes the tokens; part of every cache key and signature."""
        name = TOKENIZER_ID + (f"+{self.segment}" if self.segment else "")
        return {"tokenizer": name, "lowercase": self.lowercase}

    @classmethod
    def from_settings(cls, settings: dict) -> "Tokenizer":
        """The tokenizer ``settings()`` describes (an export's ``tokenizer`` field)."""
        _, _, segment = str(settings.get("tokenizer", TOKENIZER_ID)).partition("+")
        return cls(lowercase=bool(settings.get("lowercase", False)), segment=segment or None)


def segmenter_for(segment: str | None, *languages: str) -> str | None:
    """``segment`` as a ``Tokenizer`` takes it: ``auto`` → the segmenter of the first of
    ``languages`` that needs one (Chinese: jieba), else None; ``none`` → None."""
    if segment in (None, "none"):
        return None
    if segment == "auto":
        return next((SEGMENTED_LANGUAGES[lang.split("-")[0]] for lang in languages
                     if lang.split("-")[0] in SEGMENTED_LANGUAGES), None)
    return segment


def _jieba(token: str) -> list[str]:
    """A run of text holding Chinese characters, as jieba's words (its default mode)."""
    return [w for w in _jieba_module().lcut(token) if w.strip()]


@functools.lru_cache(maxsize=1)
def _jieba_module():
    """jieba, imported once and quiet (no "Building prefix dict" lines on stderr)."""
    try:
        import jieba
    except ImportError:
        from alignment.errors import InputError

        raise InputError("segmenting Chinese needs jieba: pip install jieba (or give "
                         "segment: none)", parameter="segment") from None
    import logging

    jieba.setLogLevel(logging.WARNING)
    return jieba
