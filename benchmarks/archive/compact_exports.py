"""Exports before and after ``crossalign export --upgrade``: bytes on disk, and whether they
score the same. For every export under OLD with a counterpart under NEW: both sizes, both
mapping fingerprints, and the largest per-segment difference of ``crossalign score``'s default
(XMoverScore 2022 plus the export's sentence map, no LM) on the first ``--n`` judged segments of
its pair (from ``crossalign data wmt17|mlqe``) — or on a few fixed sentences without data.

    git worktree add /tmp/before HEAD~1
    python benchmarks/archive/compact_exports.py /tmp/before/exports exports --wmt17 data/wmt17 --mlqe data/mlqe

Prints a table and writes JSON (default benchmarks/results/compact_exports.json)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

FALLBACK = (["Ein kleiner Satz.", "Noch ein Satz, etwas länger als der erste."],
            ["A small sentence.", "Another sentence, somewhat longer than the first."])


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def exports_under(root: Path) -> list[str]:
    return sorted(str(p.parent.relative_to(root)) for p in root.rglob("remap.json"))


def segments(name: str, data: dict[str, Path | None], n: int) -> tuple[list[str], list[str]]:
    """The first ``n`` judged segments of the export's pair, or the fixed sentences."""
    from alignment.judgments.segments import read_judgments

    bench, _, pair = name.partition("/")
    folder = data.get(bench)
    if folder is None or not (folder / pair / "test.tsv").is_file():
        return FALLBACK
    judged = read_judgments(folder / pair / "test.tsv")
    return judged.src[:n], judged.mt[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="folder of exports as they were")
    ap.add_argument("new", type=Path, help="the same exports rewritten")
    ap.add_argument("--wmt17", type=Path, help="crossalign data wmt17 output")
    ap.add_argument("--mlqe", type=Path, help="crossalign data mlqe output")
    ap.add_argument("--n", type=int, default=100, help="segments scored per export")
    ap.add_argument("--out", default="benchmarks/results/compact_exports.json")
    args = ap.parse_args()

    from alignment.mappings import load_mapping
    from alignment.xmover.scorer import XMoverScorer

    data = {"wmt17": args.wmt17, "mlqe": args.mlqe}
    rows = []
    for name in exports_under(args.new):
        if not (args.old / name / "remap.json").is_file():
            continue
        old, new = args.old / name, args.new / name
        src, hyp = segments(name, data, args.n)
        scores = [XMoverScorer(str(folder)).score(src, hyp) for folder in (old, new)]
        rows.append({
            "export": name, "old_bytes": folder_bytes(old), "new_bytes": folder_bytes(new),
            "same_fingerprint": load_mapping(old / "mapping").fingerprint()
            == load_mapping(new / "mapping").fingerprint(),
            "same_signature": scores[0].signature == scores[1].signature,
            "segments": len(src),
            "max_abs_diff": float(np.max(np.abs(np.asarray(scores[0].final)
                                                - np.asarray(scores[1].final)))),
        })
        r = rows[-1]
        print(f"{name:24} {r['old_bytes'] / 1e6:7.2f} MB → {r['new_bytes'] / 1e6:6.2f} MB  "
              f"fingerprint {'same' if r['same_fingerprint'] else 'DIFFERS'}  "
              f"signature {'same' if r['same_signature'] else 'DIFFERS'}  "
              f"{r['segments']} segments, max |Δ| {r['max_abs_diff']:.1e}", flush=True)
    old_total, new_total = (sum(r[k] for r in rows) for k in ("old_bytes", "new_bytes"))
    print(f"{'all':24} {old_total / 1e6:7.2f} MB → {new_total / 1e6:6.2f} MB "
          f"({new_total / old_total:.0%})")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"rows": rows, "old_bytes": old_total,
                                          "new_bytes": new_total}, indent=1))


if __name__ == "__main__":
    main()
