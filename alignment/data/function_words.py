"""Each listed language's commonest function words (about forty): enough to tell which of these
languages a text is in, or that a word belongs to another language than the one expected."""
from __future__ import annotations

STOP_WORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "en": "the of and to in is that it for was on with he as his they be at by this had not "
          "are but from or have an which you were her she there their all we my me him said",
    "es": "el la de que y en los del se las por un para con una su al lo como más pero sus le "
          "ya o fue este ha sí porque esta son entre cuando muy sin sobre también me hasta "
          "dijo les nos",
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als "
          "auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie",
    "fr": "le de la et les des en un une du est que il pour dans qui ne pas au sur se plus par "
          "ce avec son sont elle mais ou comme lui nous vous leur été",
    "it": "il di che e la per un in non una sono mi ho lo ma ha le si con cosa del della dei "
          "gli nel questo anche come alla più se al io",
    "pt": "o de a e que do da em um para com não uma os no se na por mais as dos como mas ao "
          "ele das seu sua ou quando muito nos já eu também",
    "nl": "de het een en van ik te dat die in is niet op met zijn voor hij maar er aan om ook "
          "als dan bij nog wat uit naar",
}.items()}
