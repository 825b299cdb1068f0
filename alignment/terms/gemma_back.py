"""Gemma back-translation: how much the output tells a multilingual LM about the source."""
from __future__ import annotations

import numpy as np

from .gemma_given_source import SourceConditionedLM, SourcePredictability
from .term import register_term
from .term import Runtime, Term


class BackTranslationPMI:
    """How much the output tells a multilingual LM about the source: mean log p(SOURCE |
    ``German: OUTPUT\nEnglish:``) minus mean log p(SOURCE | ``English:``). It reads the
    translation backwards, so content the output drops or invents lowers it, where the forward
    term (``gemma-given-source``) rewards a short, fluent output; subtracting the source's own
    likelihood removes how predictable the source is by itself."""

    def __init__(self, lm: str = "gemma3-270m") -> None:
        self.given = SourceConditionedLM(lm)
        self.alone = SourcePredictability(lm)

    def parts(self, sources: list[str], hypotheses: list[str], languages: tuple[str, str] | None,
              context: Runtime | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(the source's mean log-probability given the output, and alone)."""
        back = (languages[1], languages[0]) if languages else None
        return (self.given(hypotheses, sources, back, context),
                self.alone(sources, hypotheses, languages, context))

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None, context: Runtime | None = None
                 ) -> np.ndarray:
        given, alone = self.parts(sources, hypotheses, languages, context)
        return given - alone


register_term(Term("gemma-back", "Gemma back-translation", "--term gemma-back=W",
                   (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "Gemma 3 270M's mean token log-probability of the source after the prompt "
                   "'TARGET-LANGUAGE: output\\nSOURCE-LANGUAGE:', minus that after "
                   "'SOURCE-LANGUAGE:' alone",
                   ident="gemma3-270m-q4km+back1+cjk", compute=BackTranslationPMI(), contextual=True))


