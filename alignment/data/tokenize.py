"""A fast_align-compatible word tokenizer; the same words feed the aligner and the encoder's pooling."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass

# A word is a run of letters/digits/marks (with inner apostrophes or hyphens), or any single
# other non-space character (punctuation is split off, one token per character).
# v2: invisible format characters are dropped (v1 made each one a word without a vector)
TOKENIZER_ID = "crossalign-word-v2"
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\ufe00-\ufe0f]")
_TOKEN = re.compile(r"[^\W_](?:[^\W_]|['’\-](?=[^\W_]))*|[^\w\s]|_", re.UNICODE)


@dataclass(frozen=True)
class Tokenizer:
    """Whitespace + punctuation tokenizer with optional lowercasing; NFC-normalised output."""

    lowercase: bool = False

    def __call__(self, sentence: str) -> list[str]:
        # invisible format characters (zero-width space/joiners, direction marks, BOM) and
        # variation selectors carry no word: dropped, so they never become words of their own
        text = _INVISIBLE.sub("", unicodedata.normalize("NFC", sentence))
        if self.lowercase:
            text = text.lower()
        return _TOKEN.findall(text)

    def settings(self) -> dict:
        """What changes the tokens; part of every cache key and signature."""
        return {"tokenizer": TOKENIZER_ID, **asdict(self)}
