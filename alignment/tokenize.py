"""A fast_align-compatible word tokenizer; the same words feed the aligner and the encoder's pooling."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass

# A word is a run of letters/digits/marks (with inner apostrophes or hyphens), or any single
# other non-space character (punctuation is split off, one token per character).
_TOKEN = re.compile(r"[^\W_](?:[^\W_]|['’\-](?=[^\W_]))*|[^\w\s]|_", re.UNICODE)


@dataclass(frozen=True)
class Tokenizer:
    """Whitespace + punctuation tokenizer with optional lowercasing; NFC-normalised output."""

    lowercase: bool = False

    def __call__(self, sentence: str) -> list[str]:
        text = unicodedata.normalize("NFC", sentence)
        if self.lowercase:
            text = text.lower()
        return _TOKEN.findall(text)

    def settings(self) -> dict:
        """What changes the tokens; part of every cache key and signature."""
        return {"tokenizer": "crossalign-word-v1", **asdict(self)}
