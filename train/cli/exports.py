"""``crossalign exports``: the exports a short name finds (shipped, cached, or in a folder of
``$CROSSALIGN_EXPORTS``), with pair, encoder, layer, map and the agreement their card measured."""
from __future__ import annotations

import argparse
import json


VERBS = {"exports": "list the exports usable by name (--encoder wmt17/de-en): pair, encoder, "
                    "map, measured agreement"}


def run(args: argparse.Namespace) -> None:
    from alignment.export.named import export_roots, list_exports

    everything = entries = list_exports()
    if args.pair:
        entries = [e for e in entries if e.pair == args.pair]
    if args.shipped:
        entries = [e for e in entries if e.where == "shipped"]
    if args.format == "markdown":
        from alignment.export.which_export import measured_exports, which_export_page

        command = "crossalign exports" + (" --shipped" if args.shipped else "") + (
            f" --pair {args.pair}" if args.pair else "") + " --format markdown"
        print(which_export_page(measured_exports(entries), command))
        return
    if args.format == "json":
        print(json.dumps({"roots": [{"where": w, "folder": str(r)} for w, r in export_roots()],
                          "exports": [e.as_dict() for e in entries]}, indent=1,
                         ensure_ascii=False))
        return
    if not entries:
        print("no exports found (searched: " + (", ".join(
            f"{w} {r}" for w, r in export_roots()) or "no export folder exists") + ")")
        return
    header = ("name", "pair", "encoder", "L", "map", "where", "agreement (card)",
              "its row (the export's default, else chosen on dev)")
    rows = [(e.name, e.pair, e.encoder, str(e.layer), e.mapping, e.where,
             e.agreement or "— (not measured)", e.agreement_row or "") for e in entries]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print("\nuse one by name wherever an export path goes: crossalign score --encoder "
          f"{entries[0].name} --src SRC --hyp MT")
    if args.pair:
        from alignment.export.named import export_for_pair

        best = export_for_pair(args.pair, everything)
        print(f"measured best for {args.pair} (what `score --src-lang "
              f"{args.pair.replace('-', ' --tgt-lang ')}` uses with no --encoder): {best.name}")


def register(sub) -> None:
    p = sub.add_parser("exports", help=VERBS["exports"],
                       description="The exports a short name finds, searched in order: the "
                       "folders in $CROSSALIGN_EXPORTS, the exports shipped with crossalign, "
                       "$CROSSALIGN_CACHE/exports. A path always wins over a name.",
                       epilog="examples:\n  crossalign exports\n  crossalign exports --pair "
                       "de-en\n  crossalign score --encoder wmt17/de-en --src test.de --hyp mt.en")
    p.add_argument("--pair", help="only exports of this language pair (e.g. de-en)")
    p.add_argument("--shipped", action="store_true",
                   help="only the exports shipped with crossalign")
    p.add_argument("--format", choices=["text", "json", "markdown"], default="text",
                   help="a table (text), JSON, or markdown: the page 'which export for my "
                   "pair', one table a direction with each benchmark's mean "
                   "(docs/which_export.md is the shipped exports')")
    p.set_defaults(func=run)
