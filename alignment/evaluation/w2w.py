"""The W2W statistic (Zhao et al. 2020): how often a metric prefers a literal word-by-word
translation over the human reference."""
from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class W2WResult:
    """``evaluate w2w``'s numbers and the signature of the scores they come from."""

    metrics: dict[str, float]
    signature: str


def w2w_metrics(scorer, sources: list[str], references: list[str], other: list[str],
                label: str) -> W2WResult:
    """``evaluate w2w``: the share of sources where ``scorer`` prefers ``other`` (a literal
    translation, or MT output called ``label``) over the reference, the mean scores, and — when
    the scorer adds an LM term — the same without it and the LM term alone."""
    with_other = scorer.score(sources, other)
    with_ref = scorer.score(sources, references)
    key = label.lower()
    metrics = {"w2w": w2w_share(with_other.final, with_ref.final),
               "mean_score_ref": float(with_ref.final.mean()),
               f"mean_score_{key}": float(with_other.final.mean()), "n": float(len(sources))}
    if with_ref.lm is not None:
        metrics.update({"w2w_without_lm": w2w_share(with_other.xmover, with_ref.xmover),
                        "mean_xmover_ref": float(with_ref.xmover.mean()),
                        f"mean_xmover_{key}": float(with_other.xmover.mean()),
                        "mean_lm_ref": float(with_ref.lm.mean()),
                        f"mean_lm_{key}": float(with_other.lm.mean())})
    return W2WResult(metrics, with_ref.signature)
