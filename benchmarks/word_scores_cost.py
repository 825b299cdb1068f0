"""What ``score --words`` costs beside ``score``: the same pairs scored alone, and scored with
word scores the way the command makes them (the word pass answering its encodings and LM
tokens from the score's own pass); alternating runs after a warm-up, median of ``--repeats``;
with and without the LM; CPU always, a GPU row where one is there.

    python benchmarks/word_scores_cost.py --encoder mlqe/ro-en --lm smollm2-135m \\
        --src data/eval4nlp/ro-en/test21.tsv --n 1000

``--src`` is a judgments TSV (its src and mt columns) or a source file with ``--hyp``. Prints a
table and writes JSON (default benchmarks/results/word_scores_cost.json)."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from alignment.data.corpus import read_lines
from alignment.judgments import read_judgments
from alignment.terms import Runtime
from alignment.xmover import XMoverScorer
from alignment.xmover.words import WordScorer


def one_run(encoder: str, lm: str | None, device: str, src: list[str], hyp: list[str],
            words: bool) -> tuple[float, np.ndarray]:
    """Seconds of one scoring (with word scores when ``words``), models already loaded."""
    # the word pass answers its encodings from the score's, as ``score --words`` does
    scorer = XMoverScorer(encoder, lm=lm, setting="none",
                          runtime=Runtime.of(device=device, remember=True))
    explainer = WordScorer(scorer) if words else None
    start = time.perf_counter()
    result = scorer.score(src, hyp, warn=False)
    if explainer is not None:
        explainer.explain(src, hyp)
    return time.perf_counter() - start, result.final


def measure(encoder: str, lm: str | None, device: str, src: list[str], hyp: list[str],
            repeats: int) -> dict:
    one_run(encoder, lm, device, src[:16], hyp[:16], True)  # warm-up: loads every model
    runs: dict[str, list[float]] = {"score": [], "score --words": []}
    finals = {}
    for _ in range(repeats):
        for key, words in (("score", False), ("score --words", True)):
            seconds, finals[key] = one_run(encoder, lm, device, src, hyp, words)
            runs[key].append(seconds)
    if not np.array_equal(finals["score"], finals["score --words"]):
        raise SystemExit("the sentence scores changed when words were asked for")
    med = {k: float(np.median(v)) for k, v in runs.items()}
    return {"device": device, "lm": lm or "none", "n": len(src), "seconds_score": med["score"],
            "seconds_words": med["score --words"],
            "ms_per_segment_added": 1000 * (med["score --words"] - med["score"]) / len(src),
            "relative": med["score --words"] / med["score"], "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--encoder", default="mlqe/ro-en")
    ap.add_argument("--lm", default="smollm2-135m", help="the LM row ('none': only the row "
                    "without it)")
    ap.add_argument("--src", default="data/eval4nlp/ro-en/test21.tsv")
    ap.add_argument("--hyp", help="hypotheses, when --src is a plain source file")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="benchmarks/results/word_scores_cost.json")
    args = ap.parse_args()
    import torch

    if args.hyp:
        src, hyp = read_lines(args.src)[:args.n], read_lines(args.hyp)[:args.n]
    else:
        judged = read_judgments(args.src)
        src, hyp = judged.src[:args.n], judged.mt[:args.n]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    lms = [None] + ([] if args.lm == "none" else [args.lm])
    rows = [measure(args.encoder, lm, d, src, hyp, args.repeats) for d in devices for lm in lms]
    print(f"{'device':8} {'lm':14} {'n':>6} {'score s':>8} {'--words s':>10} "
          f"{'added ms/seg':>13} {'×':>6}")
    for r in rows:
        print(f"{r['device']:8} {r['lm']:14} {r['n']:6d} {r['seconds_score']:8.2f} "
              f"{r['seconds_words']:10.2f} {r['ms_per_segment_added']:13.2f} {r['relative']:6.2f}")
    if "cuda" not in devices:
        print("no GPU here: the GPU rows are unmeasured")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"encoder": args.encoder, "rows": rows,
                                          "threads": torch.get_num_threads(),
                                          "gpu": "cuda" in devices}, indent=2))


if __name__ == "__main__":
    main()
