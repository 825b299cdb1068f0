"""The word term ``nearest``: a word's distance to its closest word on the other side — the
token-matching view of a cross-lingual BERTScore (both sides)."""
from __future__ import annotations

from .word_term import register_word_term
from .word_transport import TransportWords

register_word_term(TransportWords(
    "nearest", (0.0, 0.5, 1.0), 1.0,
    "the distance from a word to its closest word on the other side"))
