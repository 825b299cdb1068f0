"""``crossalign export``: a fitted run as a remapped encoder."""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path


VERBS = {"export": "export a fitted run as a remapped encoder (or a jointly fine-tuned export "
                   "for another of its languages)"}

def run(args: argparse.Namespace) -> None:
    from alignment.export.remapped import export_remapped
    from alignment.mappings import load_mapping
    from alignment.export.provenance import RunRecord

    from alignment.atomic import check_output_dir
    from alignment.export.remapped import REMAP_FILE

    from alignment.names import check_corpus_name, check_language

    for value, name, check in ((args.src_lang, "src-lang", check_language),
                               (args.tgt_lang, "tgt-lang", check_language),
                               (args.corpus, "corpus", check_corpus_name)):
        if value is not None:
            check(value, name)
    from alignment.errors import InputError

    if args.build is not None:
        from .export_build import build

        build(args)
        return
    if args.measure is not None:
        from .export_build import measure

        measure(args)
        return
    for flag, value in (("from", args.clone), ("variant", args.variant), ("card", args.card)):
        if value:
            raise InputError(f"--{flag} goes with --build NAME", parameter=flag)
    if args.out is None:
        raise InputError("give --out, the export folder to write", parameter="out")
    if args.upgrade is not None:
        if args.run is not None or args.export is not None:
            raise InputError("--upgrade takes no --run or --export", parameter="upgrade")
        from alignment.export.upgrade import upgrade_export

        from alignment.export.named import resolve_export

        from .export_setting import upgraded_files

        folder = Path(resolve_export(args.upgrade))
        name = None if Path(args.upgrade).exists() else args.upgrade  # a path: its recipe's
        check_output_dir(args.out, REMAP_FILE, args.overwrite, inputs=(folder,))
        meta = upgrade_export(folder, args.out, upgraded_files(folder, name))
        print(f"rewritten as {meta['format']} in {args.out}\n{meta['signature']}")
        return
    if (args.run is None) == (args.export is None):
        raise InputError("give --run (a fitted run), --export (a fine-tuned export), "
                         "--upgrade (an export to rewrite in the current format) or --build "
                         "(an export to rebuild from its recipe)",
                         parameter="run")
    if args.export is not None:
        if not args.src_lang:
            raise InputError("--export needs --src-lang: the language to export it for",
                             parameter="src-lang")
        from alignment.export.remapped import export_for_language

        check_output_dir(args.out, REMAP_FILE, args.overwrite, inputs=(args.export,))
        meta = export_for_language(args.export, args.src_lang, args.out, args.tgt_lang)
        print(f"exported to {args.out}\n{meta['signature']}")
        return
    check_output_dir(args.out, REMAP_FILE, args.overwrite, inputs=(args.run,))
    record = RunRecord.read(args.run)
    data = record.data.with_languages(args.src_lang, args.tgt_lang)
    if args.corpus:
        data = replace(data, corpus=args.corpus)
    mapping = load_mapping(Path(args.run) / "mapping")
    meta = export_remapped(args.out, mapping, data, overwrite=args.overwrite, inputs=(args.run,))
    print(f"exported to {args.out}\n{meta['signature']}")
    for name in meta["xmoverscore_files"]:
        print(f"  XMoverScore file: {name}")
    if meta.get("xmoverscore_note"):
        print(f"  no XMoverScore file: {meta['xmoverscore_note']}")


def register(sub) -> None:
    p = sub.add_parser("export", help=VERBS["export"])
    p.add_argument("--run", help="run directory written by fit")
    p.add_argument("--export", help="a jointly fine-tuned export (Joint-Align over several "
                   "languages) to export again for --src-lang, with that language's NORM head")
    p.add_argument("--upgrade", metavar="EXPORT", help="rewrite an export in the current "
                   "format (each tensor once; same mapping, fingerprint and signature) to --out")
    p.add_argument("--build", metavar="NAME", help="rebuild an export from its recipe (a name "
                   "such as wmt17/de-en, an export folder, or a recipe.json of a new export) "
                   "and compare its fingerprints with the export's")
    p.add_argument("--from", dest="clone", metavar="CLONE", help="with --build: a clone of "
                   "the public repository the recipe's data command reads")
    p.add_argument("--variant", help="with --build: build the recipe's variant of this name "
                   "(e.g. flow) instead; without --out it goes to $CROSSALIGN_CACHE/exports, "
                   "where its name (wmt17/de-en-flow) finds it")
    p.add_argument("--card", action="store_true", help="with --build: also measure the built "
                   "export on its benchmark's test split (crossalign evaluate, with the "
                   "recipe's scoring options) and write its card")
    p.add_argument("--measure", metavar="NAME", help="measure an export as it is on its "
                   "benchmark's test split (with --from CLONE and its recipe's scoring "
                   "options) and rewrite its card: after a recipe's scoring options change")
    p.add_argument("--out", help="export folder to write: new, empty, or a previous export "
                   "(replaced)")
    p.add_argument("--overwrite", action="store_true",
                   help="also replace a previous output made before outputs listed their files "
                   "(crossalign <= 0.3.0); files crossalign did not write are never deleted")
    p.add_argument("--src-lang", help="source language code (default: the run's)")
    p.add_argument("--tgt-lang", help="target language code (default: the run's)")
    p.add_argument("--corpus", help="corpus name used in XMoverScore file names")
    p.set_defaults(func=run)
