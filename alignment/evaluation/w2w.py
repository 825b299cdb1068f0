"""The W2W statistic (Zhao et al. 2020): how often a metric prefers a literal word-by-word
translation over the human reference."""
from __future__ import annotations

import numpy as np

from alignment.data.lexicon import Lexicon
from alignment.data.tokenize import Tokenizer


def literal_translation(sentence: str, lexicon: Lexicon, tokenizer: Tokenizer | None = None) -> str:
    """Each word replaced, left to right, by its first listed sense; unknown words copied."""
    out = []
    for word in (tokenizer or Tokenizer())(sentence):
        senses = lexicon.get(word) or lexicon.get(word.lower())
        out.append(senses[0] if senses else word)
    return " ".join(out)


def w2w_share(literal_scores: np.ndarray, reference_scores: np.ndarray) -> float:
    """Share of sources where d = m(x, x′) − m(x, y*) > 0."""
    return float(np.mean(literal_scores - reference_scores > 0))
