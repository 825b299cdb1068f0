"""What the sentence-level term (with its sentence map) adds to ``score``'s run time: the same
export scored with and without it (``sentence_map="none"``) on the same pairs, alternating
runs, after one warm-up run; CPU always, a GPU row where one is there.

    python benchmarks/archive/sentence_term_cost.py --encoder exports/wmt17/de-en \\
        --src data/wmt17/de-en/train.de --hyp data/wmt17/de-en/train.en --n 1000

Prints a table and writes JSON (default benchmarks/results/sentence_term_cost.json)."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from alignment.data.corpus import read_lines
from alignment.xmover import XMoverScorer


def timed(scorer: XMoverScorer, src: list[str], hyp: list[str]) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    result = scorer.score(src, hyp, warn=False)
    return time.perf_counter() - start, result.final


def measure(encoder: str, src: list[str], hyp: list[str], device: str, repeats: int) -> dict:
    """Median seconds of each path over ``repeats`` alternating runs on ``device``."""
    with_term = XMoverScorer(encoder, device=device, setting="none")  # the sentence term alone
    if with_term.sentence is None:
        raise SystemExit(f"{encoder} adds no sentence-level term: give an export with a "
                         "sentence map (crossalign train --sentence-map orthogonal)")
    without = XMoverScorer(encoder, device=device, sentence_map="none", setting="none")
    timed(with_term, src[:32], hyp[:32]), timed(without, src[:32], hyp[:32])  # warm-up
    runs: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(repeats):
        runs["without"].append(timed(without, src, hyp)[0])
        runs["with"].append(timed(with_term, src, hyp)[0])
    med = {k: float(np.median(v)) for k, v in runs.items()}
    return {"device": device, "n": len(src), "seconds_with": med["with"],
            "seconds_without": med["without"],
            "ms_per_segment_added": 1000 * (med["with"] - med["without"]) / len(src),
            "relative": med["with"] / med["without"], "runs": runs,
            "signature": with_term.signature}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--encoder", default="exports/wmt17/de-en", help="an export with a sentence map")
    ap.add_argument("--src", default="data/wmt17/de-en/train.de")
    ap.add_argument("--hyp", default="data/wmt17/de-en/train.en")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="benchmarks/results/sentence_term_cost.json")
    args = ap.parse_args()
    import torch

    src, hyp = read_lines(args.src)[:args.n], read_lines(args.hyp)[:args.n]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = [measure(args.encoder, src, hyp, d, args.repeats) for d in devices]
    print(f"{'device':8} {'n':>6} {'without s':>10} {'with s':>8} {'added ms/seg':>13} {'×':>6}")
    for r in rows:
        print(f"{r['device']:8} {r['n']:6d} {r['seconds_without']:10.2f} {r['seconds_with']:8.2f} "
              f"{r['ms_per_segment_added']:13.2f} {r['relative']:6.2f}")
    if "cuda" not in devices:
        print("no GPU here: the GPU row is unmeasured")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"rows": rows, "threads": torch.get_num_threads(),
                                          "gpu": "cuda" in devices}, indent=2))


if __name__ == "__main__":
    main()
