"""What the terms of a multilingual LM share: the prompt's wording, the English names of the
languages it names, and one loaded LM per name, device and precision for a runtime."""
from __future__ import annotations

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


def shared_lm(name: str, context=None):
    """One ``LanguageModelScorer`` per LM name, device and precision for all terms of a
    runtime (kept in its cache; each loads on first use): the terms over one prompt share
    its passes."""
    from alignment.xmover.lm import LanguageModelScorer

    from .term import Runtime

    context = context or Runtime()
    return context.cache.model(("lm", name, context.device, context.precision),
                               lambda: LanguageModelScorer(name, device=context.device,
                                                           precision=context.precision,
                                                           pool=context.cache.weights))
