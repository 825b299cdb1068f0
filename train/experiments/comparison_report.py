"""The tables ``crossalign compare`` prints: every row by selection rule, every row against
the baseline, and the best row against the others."""
from __future__ import annotations

import numpy as np

from alignment.data.splits import parse_pair

from train.runs.reporting import format_difference, verdict
from .comparison_config import SELECTIONS, CompareConfig, training_seeds


def format_head_to_head(best: str, ahead: dict[str, tuple[float, float, float]],
                        cfg: CompareConfig) -> str:
    """The best row against every other non-baseline row: whether its lead is real."""
    width = max(9, *(len(m) for m in ahead))
    lines = [f"The best row, {best}, against each other row (its P@1 minus the row's, points, "
             f"paired bootstrap 95% CI over the test verses, {cfg.bootstrap} resamples):",
             f"{'method':{width}}  {'lead':>6}  {'95% CI':>16}  verdict", "-" * (width + 44)]
    for label, (d, lo, hi) in ahead.items():
        lines.append(f"{label:{width}}  {format_difference(d, lo, hi)}")
    return "\n".join(lines)


def format_differences(rows: dict, diffs: dict, base: str, cfg: CompareConfig,
                       labels: list[str], notes: dict[str, str],
                       per_seed: dict[str, list[float]] | None = None,
                       measure: str = "retrieval_cosine_src2tgt") -> str:
    """Each row against the baseline: retrieval P@1 X→en (or, ``measure="cbli_p1"``, CBLI
    P@1) at the epoch the label-free semantic criterion picked, its paired-bootstrap 95%
    interval over the test verses (gold occurrences), a verdict, and (trained rows, retrieval)
    the P@1 of the best epoch in hindsight; with several seeds, each seed's difference too."""
    width = max(9, *(len(m) for m in labels))
    seeds = training_seeds(cfg)
    items = "test verses" if measure == "retrieval_cosine_src2tgt" else "CBLI gold occurrences"
    what = (f"retrieval P@1 {parse_pair(cfg.pair)}→en" if measure == "retrieval_cosine_src2tgt"
            else "CBLI P@1")
    over = (f"mean over training seeds {', '.join(map(str, seeds))}; the CI resamples the "
            f"{items} of the seed-averaged difference, " if len(seeds) > 1 else "")
    lines = [f"Against {base} ({what}, semantic-selected epoch; difference in points "
             f"with a paired bootstrap 95% CI over the {items}, {over}{cfg.bootstrap} "
             "resamples):",
             f"{'method':{width}}  {'P@1':>6}  {'Δ':>6}  {'95% CI':>16}  {'verdict':<13} "
             f"{'best epoch':>10}  {'minutes':>7}", "-" * (width + 72)]
    for label in labels:
        r = rows[f"{label}/semantic"]
        minutes = r.get("seconds", float("nan")) / 60
        if label == base:
            lines.append(f"{label:{width}}  {100 * r[measure]:6.1f}  "
                         f"{'—':>6}  {'(baseline)':>16}  {'':<13} {'':>10}  {minutes:7.1f}")
            continue
        if label not in diffs:
            lines.append(f"{label:{width}}  {'—':>6}  {'—':>6}  {'':>16}  {notes.get(label, ''):<12}")
            continue
        d, lo, hi = diffs[label]
        note = f" ({notes[label]})" if label in notes else ""
        oracle = r.get("oracle_retrieval") if measure == "retrieval_cosine_src2tgt" else None
        best = "" if oracle is None else f"{100 * oracle:.1f}"
        spread = ""
        if per_seed and label in per_seed:
            spread = "  per seed " + " ".join(f"{100 * v:+.1f}" for v in per_seed[label])
        lines.append(f"{label:{width}}  {100 * r[measure]:6.1f}  "
                     f"{100 * d:+6.1f}  [{100 * lo:+6.1f}, {100 * hi:+6.1f}]  {verdict(lo, hi):<13} "
                     f"{best:>10}  {minutes:7.1f}{spread}{note}")
    return "\n".join(lines)


def format_compare(rows: dict, tracking: dict, cfg: CompareConfig, labels: list[str],
                   notes: dict[str, str] | None = None, seeds: list[int] | None = None) -> str:
    width = max(9, *(len(m) for m in labels))
    over = f"; mean over training seeds {', '.join(map(str, seeds))}" \
        if seeds and len(seeds) > 1 else ""
    src = parse_pair(cfg.pair)
    layer = "last" if cfg.layer == -1 else cfg.layer
    lines = [f"Bible {src}–en, {cfg.encoder} layer {layer}: {cfg.max_pairs} training pairs "
             f"max, {cfg.epochs} epochs{over}; held-out retrieval P@1 ({src}→en) / CBLI P@1 "
             "(one-to-one gold), by selection rule; "
             f"validation pairs for every criterion from the {cfg.validation} verses",
             f"{'method':{width}} " + "  ".join(f"{s:>15}" for s in SELECTIONS), "-" * (width + 68)]
    for label in labels:
        cells = []
        for sel in SELECTIONS:
            r = rows[f"{label}/{sel}"]
            cells.append("diverged" if np.isnan(r["retrieval_cosine_src2tgt"]) else
                         f"{100 * r['retrieval_cosine_src2tgt']:6.1f} / {100 * r['cbli_p1']:5.1f}")
        note = f"  ({notes[label]})" if notes and label in notes and notes[label] != "diverged" else ""
        lines.append(f"{label:{width}} " + "  ".join(f"{c:>15}" for c in cells) + note)
    if tracking:
        lines += ["", "Pearson over epochs between each criterion and held-out retrieval P@1:"]
        lines += [f"  {k}: {v:+.2f}" for k, v in tracking.items()]
    return "\n".join(lines)
