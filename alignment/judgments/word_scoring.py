"""Scoring a benchmark's labelled words with XMoverScore rows (``xmover.words``) and measuring
them against people's word labels (``word_level``): each row's combined word score, each term
alone, a random floor, MCC at a threshold chosen on dev, and the dev-set grid of term weights."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .benchmark_rows import joint_signature
from .word_level import (LabelledWords, best_threshold, explanation_metrics, tag_mcc)

WORD_METRICS = ("auc", "ap", "recall_at_k")


@dataclass
class ScoredWords:
    """Word-level agreement of every row: ``metrics`` keyed ``ROW/PAIR/SIDE/METRIC`` (SIDE
    ``mt`` or ``src``; METRIC an explanation metric with ``_lo``/``_hi``, ``n``, or ``mcc``),
    the rows in order, and each row's signature."""

    metrics: dict[str, float]
    rows: list[str]
    signatures: dict[str, str]
    seconds: dict[str, float]
    grid: list[tuple[dict[str, float], float]] | None = None
    threshold: float | None = None  # with the grid: the first row's pooled best-MCC threshold


def score_words(data: LabelledWords, rows: list, options: dict, lm: str | None = None,
                weights: dict[str, float] | None = None, dev: LabelledWords | None = None,
                resamples: int = 1000, seed: int = 0, log=print, grid: bool = False,
                pool: str = "max") -> ScoredWords:
    """Word scores of every ``rows`` entry (``row_spec.EncoderRow``) on ``data``, measured
    against its labels: the row's combined score (``weights``), each term alone, and a random
    row (the floor). With ``dev`` (labelled words of a dev split), each row's BAD threshold for
    MCC is the one with the best MCC on dev; without it, no MCC. With ``grid``, the first
    row's term weights are searched over each term's grid (``weight_grid``): how the default
    weights were chosen, on dev. ``pool``: how subword values become a word's (``WordScorer``)."""
    import time

    from alignment.evaluation.metrics import get_metric
    from alignment.xmover.words import WordScorer, word_terms

    for row in rows:
        for pair in data.pairs:
            row.encoder_for(pair)
    metrics: dict[str, float] = {}
    labels: list[str] = []
    signatures: dict[str, set[str]] = {}
    seconds = {"explain": 0.0}
    for_grid: list[tuple[list[np.ndarray], list[dict[str, np.ndarray]]]] = []
    pooled: list[tuple[list[np.ndarray], list[np.ndarray]]] = []

    def add(label: str, pair: str, side: str, tags: list[np.ndarray], scores: list[np.ndarray],
            threshold: float | None = None) -> None:
        if label not in labels:
            labels.append(label)
        found = explanation_metrics(tags, scores, resamples, seed)
        for k, v in found.items():
            metrics[f"{label}/{pair}/{side}/{k}"] = v
        if threshold is not None:
            for k, v in tag_mcc(tags, scores, threshold, resamples, seed).items():
                metrics[f"{label}/{pair}/{side}/{k}"] = v
            metrics[f"{label}/{pair}/{side}/threshold"] = threshold

    for pair in data.pairs:
        part = data.of_pair(pair)
        dev_part = dev.of_pair(pair) if dev is not None and pair in dev.pairs else None
        for row in rows:
            log(f"word scores of {pair} with {row.label} ({len(part)} segments)")
            scorer = get_metric("xmoverscore").build(row.encoder_for(pair),
                                                     languages=tuple(pair.split("-")), lm=lm,
                                                     **row.options(options))
            words = WordScorer(scorer, weights, pool)
            t0 = time.perf_counter()
            found = words.explain(part.src, part.mt)
            seconds["explain"] += time.perf_counter() - t0
            on_dev = words.explain(dev_part.src, dev_part.mt) if dev_part is not None else None
            signatures.setdefault(row.label, set()).add(words.signature)
            if grid and row is rows[0]:
                for_grid.append((part.mt_tags, [w.terms for w in found]))
                pooled.append((part.mt_tags, [w.scores for w in found]))
            views = {"": (lambda w: w.scores, lambda w: w.src_scores)}
            views.update({f" · {t} alone": ((lambda w, t=t: w.terms[t]),
                                           (lambda w, t=t: w.src_terms.get(t)))
                          for t in word_terms() if t in found[0].terms})
            for suffix, (mt_view, src_view) in views.items():
                label = row.label + suffix
                for side, view, tags, dev_tags in (
                        ("mt", mt_view, part.mt_tags, dev_part.mt_tags if dev_part else None),
                        ("src", src_view, part.src_tags, dev_part.src_tags if dev_part else None)):
                    scores = [view(w) for w in found]
                    if any(s is None for s in scores):
                        continue
                    threshold = None if on_dev is None else \
                        best_threshold(dev_tags, [view(w) for w in on_dev])
                    add(label, pair, side, tags, scores, threshold)
        rng = np.random.default_rng(seed)
        for side, tags in (("mt", part.mt_tags), ("src", part.src_tags)):
            add("random word scores", pair, side, tags, [rng.random(len(t)) for t in tags])
    threshold = best_threshold([t for tags, _ in pooled for t in tags],
                               [v for _, scores in pooled for v in scores]) if pooled else None
    return ScoredWords(metrics, labels, {k: joint_signature(v) for k, v in signatures.items()},
                       seconds, weight_grid(for_grid) if grid else None, threshold)


def weight_grid(parts: list[tuple[list[np.ndarray], list[dict[str, np.ndarray]]]]
                ) -> list[tuple[dict[str, float], float]]:
    """Every weighting of the word terms over their grids (weightings equal up to scale are
    tried once: they rank words alike), ranked by the mean over pairs of (AUC + AP) / 2 on MT
    words; ``parts`` holds per pair the labels and each sentence's terms."""
    import itertools

    from alignment.xmover.words import combine, word_terms

    grids = {n: t.grid for n, t in word_terms().items()}
    present = [t for t in grids if all(t in terms[0] for _, terms in parts)]
    seen, ranked = set(), []
    # largest values first: of weightings equal up to scale, the one with the larger weights
    # is the one tried and shown
    for values in itertools.product(*(sorted(grids[t], reverse=True) for t in present)):
        if not any(values):
            continue
        top = max(values)
        key = tuple(round(v / top, 6) for v in values)
        if key in seen:
            continue
        seen.add(key)
        weights = dict(zip(present, values))
        quality = []
        for tags, terms in parts:
            found = explanation_metrics(tags, [combine(t, weights) for t in terms], 1)
            quality.append((found["auc"] + found["ap"]) / 2)
        ranked.append((weights, float(np.mean(quality))))
    return sorted(ranked, key=lambda kv: -kv[1])


def format_word_table(result: ScoredWords, pairs: list[str], title: str,
                      anchors: tuple = ()) -> str:
    """One block a pair: every row's AUC, AP and recall at top-K [95% CI] on MT words and on
    source words, MCC where measured; then the published anchors of those pairs."""
    m = result.metrics
    cell = (lambda key: "–" if key not in m else
            f"{m[key]:.3f} [{m[key + '_lo']:.3f}, {m[key + '_hi']:.3f}]")
    lines = [title]
    for pair in pairs:
        n = m.get(f"{result.rows[0]}/{pair}/mt/n")
        lines.append(f"\n{pair}" + (f" ({int(n)} sentences with both an error and a correct "
                                    "MT word)" if n is not None else ""))
        has_mcc = any(f"{r}/{pair}/mt/mcc" in m for r in result.rows)
        head = ["row", "MT AUC", "MT AP", "MT recall@K", "src AUC", "src AP"] + (
            ["MT MCC", "src MCC"] if has_mcc else [])
        lines.append(" | ".join(head))
        for r in result.rows:
            cells = [r] + [cell(f"{r}/{pair}/mt/{k}") for k in WORD_METRICS] + \
                [cell(f"{r}/{pair}/src/{k}") for k in ("auc", "ap")]
            if has_mcc:
                cells += [cell(f"{r}/{pair}/{side}/mcc") for side in ("mt", "src")]
            lines.append(" | ".join(cells))
    shown = [a for a in anchors if any(p in a.values for p in pairs)]
    if shown:
        lines.append("\npublished:")
        for a in shown:
            vals = "  ".join(f"{p} {a.values[p]:.3f}" for p in pairs if p in a.values)
            lines.append(f"  {a.label}: {vals}" + (f"  ({a.note})" if a.note else ""))
    return "\n".join(lines)
