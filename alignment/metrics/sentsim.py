"""SentSim (Song et al. 2021), its BERTScore form: a sentence similarity and a token-level
score, each min-max normalised over the sentences scored together, combined as
``exp(sentence) + exp(token)``. Here the sentence similarity is a registered term (USE
multilingual v3 by default: the published sentence model, a multilingual STS-tuned XLM-R, is
not reachable offline) and the token score is BERTScore F1 through the encoder or export."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from alignment.errors import InputError
from alignment.signature import MetricSignature, parse_signature
from .result import MetricResult

VERSION = "bertscore-exp"  # the published combination: exp(cos) + exp(BERTScore F1)


def min_max(values: np.ndarray) -> np.ndarray:
    """``values`` scaled to [0, 1] over the set, as the public code does; a constant set (where
    the public code divides by zero) is all zeros."""
    values = np.asarray(values, dtype=np.float64)
    low, high = values.min(), values.max()
    return np.zeros_like(values) if high == low else (values - low) / (high - low)


def combine(sentence: np.ndarray, token: np.ndarray) -> np.ndarray:
    """SentSim's combination of the two normalised scores (both higher-is-better)."""
    return np.exp(min_max(sentence)) + np.exp(min_max(token))


class SentSim:
    """SentSim of each output against its source (through an export's map) or its reference
    (an export's encoder without its map, or a plain encoder at ``layer``). Its scores are
    relative to the set scored together: score a test set, or a language pair of it, in one
    call."""

    def __init__(self, encoder: str | Path, sentence: str = "use", layer: int | None = None,
                 batch_size: int = 64, device: str | None = None) -> None:
        from alignment.terms import get_term

        term = get_term(sentence, parameter="sentence")
        if term.compute is None:
            raise InputError(f"the term {sentence!r} is computed inside XMoverScore's scorer; "
                             "give a registered sentence term (e.g. use)", parameter="sentence")
        self.term, self.encoder, self.layer = term, encoder, layer
        self.batch_size, self.device = batch_size, device

    def score(self, hypotheses: list[str], sources: list[str] | None = None,
              references: list[str] | None = None,
              languages: tuple[str, str] | None = None) -> MetricResult:
        from alignment.metrics.bertscore import cross_lingual_bertscore

        if (sources is None) == (references is None):
            raise InputError("give sources (reference-free) or references, not both",
                             parameter="references")
        other, form = (references, "ref") if references is not None else (sources, "src")
        if not hypotheses:
            raise InputError("nothing to score", parameter="hypotheses")
        tokens = cross_lingual_bertscore(self.encoder, other, hypotheses, self.layer,
                                         self.batch_size, self.device,
                                         against_reference=form == "ref")
        sentence = np.asarray(self.term.compute(other, hypotheses,
                                                None if form == "ref" else languages),
                              dtype=np.float64)
        bs = parse_signature(tokens.signature)
        signature = MetricSignature(
            "sentsim", VERSION, {"enc": bs["enc"], "L": bs["L"], "map": bs["map"]},
            f"sent:{self.term.ident or self.term.name}+tok:bertscore-f1+norm:minmax-set",
            "none", form)
        return MetricResult(combine(sentence, tokens.f1), str(signature),
                            {"sentence": sentence, "bertscore_f1": np.asarray(tokens.f1)})
