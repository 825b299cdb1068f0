"""One entry point for any X–en corpus: the Bible for most pairs, LibreOffice's help pages for
those without a Bible here (Basque); where each pair's corpus lives by default."""
from __future__ import annotations

from pathlib import Path

from .bible import BibleReport, build_bible
from .help_pages import build_help_corpus
from .splits import parse_pair
from .verse_texts import source_of

DEFAULT_PAIR = "es-en"


def corpus_folder(pair: str) -> str:
    """Where a pair's corpus is built unless a folder is named."""
    if pair == DEFAULT_PAIR:
        return "data/bible"
    kind = "help" if source_of(pair).source == "help" else "bible"
    return f"data/{kind}-{parse_pair(pair)}-en"


def build_pair_corpus(out_dir: str | Path, pair: str = DEFAULT_PAIR, text: str | None = None,
                      n_test: int = 1000, n_dev: int = 1000, seed: int = 0,
                      books: list[str] | None = None, progress: bool = True) -> BibleReport:
    """Build the pair's train/dev/test files in ``out_dir`` from its source."""
    if source_of(pair, text).source == "help":  # paragraphs of the help pages, not verses
        report = build_help_corpus(out_dir, parse_pair(pair), n_test, n_dev, seed)
        return BibleReport(report["kept"] + sum(report["dropped"].values()), report["kept"],
                           splits=report["splits"])
    return build_bible(out_dir, n_test=n_test, n_dev=n_dev, seed=seed, books=books,
                       progress=progress, pair=pair, text=text)
