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
        if args.run is not None or args.export is not None or args.upgrade is not None:
            raise InputError("--build takes no --run, --export or --upgrade", parameter="build")
        build(args)
        return
    if args.clone is not None:
        raise InputError("--from goes with --build NAME", parameter="from")
    if args.upgrade is not None:
        if args.run is not None or args.export is not None:
            raise InputError("--upgrade takes no --run or --export", parameter="upgrade")
        from alignment.export.upgrade import upgrade_export

        check_output_dir(args.out, REMAP_FILE, args.overwrite, inputs=(args.upgrade,))
        meta = upgrade_export(args.upgrade, args.out)
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


def build(args: argparse.Namespace) -> None:
    """Replay an export's recipe (``recipe.json``: its data command on ``--from CLONE``, then
    its ``train`` command) in a scratch folder, write what it made to ``--out`` with a
    ``build.json`` report, and compare it with the export, fingerprint by fingerprint."""
    import json
    import shutil
    import tempfile

    from alignment.atomic import atomic_dir, check_output_dir, write_text
    from alignment.errors import InputError
    from alignment.export.named import resolve_export
    from alignment.export.recipe import Recipe, compare
    from alignment.export.remapped import REMAP_FILE

    from . import main

    export = Path(resolve_export(args.build))
    if not (export / REMAP_FILE).is_file():
        raise InputError(f"'{args.build}' is no export here or by name (crossalign exports "
                         "lists them)", parameter="build")
    recipe = Recipe.read(export)
    if args.clone is None or not Path(args.clone).is_dir():
        raise InputError(f"--build needs --from CLONE, a folder holding a clone of the "
                         f"{recipe.benchmark} repository (got {args.clone})", parameter="from")
    check_output_dir(args.out, REMAP_FILE, args.overwrite, inputs=(export, args.clone))
    shipped = json.loads((export / REMAP_FILE).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="crossalign-build-") as scratch:
        data, run_dir = Path(scratch) / "data", Path(scratch) / "run"
        for step in (recipe.data_command(str(args.clone), str(data)),
                     recipe.train_command(data, str(run_dir))):
            print("$ " + " ".join(step), flush=True)
            if main(step[1:]) != 0:
                raise InputError(f"the recipe of {export} failed at `{' '.join(step[:3])}` "
                                 "(its error is above)", parameter="build")
        built = run_dir / "export"
        rows = compare(shipped, json.loads((built / REMAP_FILE).read_text(encoding="utf-8")))
        with atomic_dir(args.out, REMAP_FILE, args.overwrite, inputs=(export, args.clone)) as tmp:
            for item in built.iterdir():
                if not item.name.startswith("."):
                    (shutil.copytree if item.is_dir() else shutil.copy2)(item, tmp / item.name)
            recipe.write(tmp)
            write_text(tmp / "build.json", json.dumps({
                "export": str(args.build), "recipe": recipe.as_dict(),
                "reproduced": all(r[3] for r in rows),
                "fields": [{"field": f, "shipped": a, "rebuilt": b, "equal": e}
                           for f, a, b, e in rows]}, indent=2, ensure_ascii=False) + "\n")
    for field, a, b, equal in rows:
        print(f"{'same' if equal else 'DIFFERS':8} {field}: {b}" + ("" if equal else f" (shipped: {a})"))
    differ = [r[0] for r in rows if not r[3]]
    if differ:
        raise InputError(f"the rebuilt export in {args.out} is not {export}: {', '.join(differ)} "
                         "differ (build.json lists both)", parameter="build")
    print(f"reproduced {args.build} in {args.out}: every fingerprint is the shipped one")


def register(sub) -> None:
    p = sub.add_parser("export", help=VERBS["export"])
    p.add_argument("--run", help="run directory written by fit")
    p.add_argument("--export", help="a jointly fine-tuned export (Joint-Align over several "
                   "languages) to export again for --src-lang, with that language's NORM head")
    p.add_argument("--upgrade", metavar="EXPORT", help="rewrite an export in the current "
                   "format (each tensor once; same mapping, fingerprint and signature) to --out")
    p.add_argument("--build", metavar="NAME", help="rebuild a shipped export (a name such as "
                   "mlqe/et-en, or a folder holding recipe.json) from --from CLONE and compare "
                   "its fingerprints with the export's")
    p.add_argument("--from", dest="clone", metavar="CLONE", help="with --build: a clone of "
                   "the public repository the recipe's data command reads")
    p.add_argument("--out", required=True, help="export folder to write: new, empty, or a "
                   "previous export (replaced)")
    p.add_argument("--overwrite", action="store_true",
                   help="also replace a previous output made before outputs listed their files "
                   "(crossalign <= 0.3.0); files crossalign did not write are never deleted")
    p.add_argument("--src-lang", help="source language code (default: the run's)")
    p.add_argument("--tgt-lang", help="target language code (default: the run's)")
    p.add_argument("--corpus", help="corpus name used in XMoverScore file names")
    p.set_defaults(func=run)
