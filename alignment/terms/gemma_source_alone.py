"""Gemma's LM of the source: how ordinary the source is to a multilingual LM — its mean
log-probability after the source language's name alone (``SourcePredictability``)."""
from __future__ import annotations

from .gemma_given_source import SourcePredictability
from .term import register_term
from .term import Term

register_term(Term("gemma-source-alone", "Gemma LM of the source",
                   "--term gemma-source-alone=W",
                   (0.0, 0.01, 0.02, 0.05, 0.1),
                   "Gemma 3 270M's mean token log-probability of the source after "
                   "'SOURCE-LANGUAGE:' (how ordinary the source is: a hard source gets a worse "
                   "translation)", ident="gemma3-270m-q4km+alone1+cjk",
                   compute=SourcePredictability(), contextual=True))
