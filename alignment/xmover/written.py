"""The text as its readers saw it. WMT releases its MT outputs Moses-tokenised, lowercased and
HTML-escaped (``there was a parasite in albert &apos;s smoked salmon .``); the people who
judged them read the cased, detokenised originals. An encoder or an LM reads the released form
as odd, disfluent text, so a score of it hears the preprocessing, not the translation.
A scorer that reads ``written`` puts its hypotheses (the MT outputs) through ``as_written``.

``as_written`` undoes that preprocessing where a text shows it (an escaped entity, `` , ``, a
final `` .``, ``@-@``) and leaves every other text as it is: a natural sentence is never
changed, so nothing measured on natural text (MLQE-PE) moves. A lowercased text gets its
first letter, the pronoun *I* and the words its source writes capitalised (names) back."""
from __future__ import annotations

import re

from alignment.catalogue import check_choice

READINGS = ("given", "written")  # how a scorer reads its text: as given, or as_written
RULE = "moses1"  # what the signature records of as_written's rules (bump when they change)

_ENTITIES = {"apos": "'", "quot": '"', "amp": "&", "lt": "<", "gt": ">", "#91": "[",
             "#93": "]", "#124": "|"}
_ENTITY = re.compile(f"&({'|'.join(_ENTITIES)});")
# what only a tokeniser writes: an escaped entity, a comma or full stop set apart, @-@
_SIGNS = re.compile(f"{_ENTITY.pattern}| , | \\.(?: |$)| @[-/]@ ")
_BEFORE = re.compile(r" ([,.!?;:%)\]}]|'(?:s|t|re|ve|ll|d|m)\b|n't\b)", re.IGNORECASE)
_AFTER = re.compile(r"([(\[{$]) ")
_WORD = re.compile(r"\w+")
_SENTENCE_START = re.compile(r"(^|[.!?]\s+)([\"'(]*)(\w)")


def is_tokenised(text: str) -> bool:
    """Whether ``text`` shows a tokeniser's marks (``as_written`` changes only such text)."""
    return bool(_SIGNS.search(text))


def _quotes(text: str) -> str:
    """Straight double quotes set apart on both sides: an opening one (odd) joins the word
    after it, a closing one (even) the word before it."""
    parts = text.split('"')
    out = parts[0]
    for k, part in enumerate(parts[1:]):
        out = out + '"' + part.lstrip(" ") if k % 2 == 0 else out.rstrip(" ") + '"' + part
    return out


def _recase(text: str, source: str | None, language: str | None) -> str:
    """A lowercased text's sentence starts (and, in English, *I*) upper-cased, and each word
    its source writes capitalised (not as the source's first word) written so."""
    names: dict[str, str] = {}
    if source:
        words = _WORD.findall(source)
        names = {w.lower(): w for w in words[1:] if w[:1].isupper()}
    if language in (None, "en"):
        names["i"] = "I"
    text = _WORD.sub(lambda m: names.get(m.group(0), m.group(0)), text)
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2) + m.group(3).upper(), text)


def as_written(text: str, source: str | None = None, language: str | None = None) -> str:
    """``text`` with a tokeniser's marks undone (entities unescaped, punctuation and English
    clitics joined, ``@-@`` joined) and, where it has no capital letter, re-cased (``source``:
    the sentence it translates, whose capitalised words are names; ``language``: the text's,
    where known: *i* becomes *I* in English only). A text with no such marks is returned
    unchanged."""
    if not is_tokenised(text):
        return text
    out = _ENTITY.sub(lambda m: _ENTITIES[m.group(1)], text)
    out = out.replace(" @-@ ", "-").replace(" @/@ ", "/")
    out = _AFTER.sub(r"\1", _BEFORE.sub(r"\1", out))
    out = _quotes(out)
    if not any(c.isupper() for c in out) and any(c.islower() for c in out):
        out = _recase(out, source, language)
    return out


def read_outputs(reading: str, sources: list[str], hypotheses: list[str],
                 language: str | None = None) -> list[str]:
    """The hypotheses as ``reading`` says: ``given`` (unchanged) or ``written`` (``as_written``,
    each re-cased from its source). Sources are people's text and stay as given."""
    check_reading(reading)
    if reading == "given":
        return hypotheses
    return [as_written(h, s, language) for s, h in zip(sources, hypotheses)]


def read_segments(reading: str, lp: list[str], sources: list[str], hypotheses: list[str]
                  ) -> list[str]:
    """``read_outputs`` over segments of several language pairs (``lp``: ``de-en`` each), each
    output read in its pair's target language."""
    check_reading(reading)
    if reading == "given":
        return list(hypotheses)
    return [as_written(h, s, pair.split("-")[-1]) for pair, s, h in zip(lp, sources, hypotheses)]


def check_reading(reading: str) -> str:
    """``reading`` if it is one of ``READINGS``, else a clear error naming ``--read``."""
    return check_choice(reading, READINGS, "reading", "read")


def describe(reading: str) -> str | None:
    """What a signature records: nothing for ``given``, ``written:RULE`` otherwise."""
    return None if reading == "given" else f"written:{RULE}"
