"""``crossalign exports``: the exports a short name finds (shipped, cached, or in a folder of
``$CROSSALIGN_EXPORTS``), with pair, encoder, layer, map and the agreement their card measured."""
from __future__ import annotations

import argparse
import json

from .options import add_format_option

VERBS = {"exports": "list the exports usable by name (--encoder wmt17/de-en): pair, encoder, "
                    "map, measured agreement"}


def run(args: argparse.Namespace) -> None:
    from alignment.export.named import export_roots, list_exports

    entries = list_exports()
    if args.pair:
        entries = [e for e in entries if e.pair == args.pair]
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


def register(sub) -> None:
    p = sub.add_parser("exports", help=VERBS["exports"],
                       description="The exports a short name finds, searched in order: the "
                       "folders in $CROSSALIGN_EXPORTS, the exports shipped with crossalign, "
                       "$CROSSALIGN_CACHE/exports. A path always wins over a name.",
                       epilog="examples:\n  crossalign exports\n  crossalign exports --pair "
                       "de-en\n  crossalign score --encoder wmt17/de-en --src test.de --hyp mt.en")
    p.add_argument("--pair", help="only exports of this language pair (e.g. de-en)")
    add_format_option(p)
    p.set_defaults(func=run)
