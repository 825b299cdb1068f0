"""The unsupervised table: every route against ``center`` (no pairs) and the supervised
``center > clp``, and how the label-free criterion tracks held-out P@1."""
from __future__ import annotations

import numpy as np

from alignment.evaluation.correlation import pearson
from alignment.evaluation.retrieval import columns, paired_bootstrap
from alignment.mappings import BASELINE
from alignment.unsupervised.self_training import lexicon_judge

from train.runs.reporting import Column, format_difference, format_table
from .shared import measure
from .testbed import UnpairedBible




def reference_rows() -> list[tuple[str, str, str]]:
    """(row, metrics key, name in the text) of the rows every route is compared with."""
    return [("center", "center", "center (no pairs)"),
            (f"supervised: {BASELINE}", "center_clp",
             BASELINE + " (supervised)")]


def unsupervised_rows(rows: dict) -> list[str]:
    return [n for n in rows if not n.startswith("supervised") and n != "unmapped"]


def criterion_pick(rows: dict) -> str | None:
    """The unsupervised row (``center`` included) with the highest semantic criterion on the
    unpaired validation pools: what a user without labels would export."""
    unsup = unsupervised_rows(rows)
    if "center" not in unsup or len(unsup) < 2:
        return None
    return max(unsup, key=lambda n: rows[n]["semantic"])


def mining_report(module, u: UnpairedBible) -> dict[str, float]:
    """Each mining iteration (printed) and the kept one's numbers; the share of mined pairs
    that are the same verse is reporting only (never used to choose)."""
    info: dict[str, float] = {}
    for r in module.rounds:
        same = float(np.mean([u.src_verses[a] == u.tgt_verses[b] for a, b in zip(r.src, r.tgt)]))
        print(f"  mining iteration {r.iteration}: {len(r.src)} sentence pairs ({100 * same:.1f}% "
              f"true translations), {r.word_pairs} word pairs, semantic {r.semantic:.4f}", flush=True)
        if r.kept:
            info = {"mined_sentences": float(len(r.src)), "mined_word_pairs": float(r.word_pairs),
                    "mined_true_share": same, "mining_iteration": float(r.iteration)}
    return info


def seed_dictionary_report(module, words: tuple[list[str], list[str]],
                           lexicon: dict[str, list[str]] | None) -> dict[str, float]:
    """VecMap's initial dictionary (pairs of rows of the type centroids whose ``words`` are
    given, most frequent first) judged against the bilingual dictionary: a lower bound on its
    precision, since FreeDict misses many true pairs; reporting only (never used to choose)."""
    if lexicon is None or module.seed_dictionary is None:
        return {}
    src, tgt = (t.numpy() for t in module.seed_dictionary)
    share = lexicon_judge(*words, lexicon)(src, tgt)
    print(f"  seed dictionary: {len(src)} type pairs, {100 * share:.1f}% of them FreeDict "
          "entries", flush=True)
    return {"seed_pairs": float(len(src)), "seed_precision": share}


def compare_routes(rows: dict, hits: dict, cfg) -> dict[str, float]:
    """Each row against the references (paired bootstrap) and, over the unsupervised rows,
    how the label-free criterion tracks held-out P@1: flat metrics, the rows untouched."""
    out: dict[str, float] = {}
    for ref, key, _ in reference_rows():
        if ref not in hits:
            continue
        for name, h in hits.items():
            if name != ref:
                d, lo, hi = paired_bootstrap(h, hits[ref], cfg.bootstrap_samples, cfg.seed)
                out.update({f"{name}/vs_{key}": d, f"{name}/vs_{key}_lo": lo,
                            f"{name}/vs_{key}_hi": hi})
    key = measure(cfg)[0]
    pick = criterion_pick(rows)
    if pick is not None:
        out["criterion/pick_src2tgt"] = rows[pick][key]
    unsup = unsupervised_rows(rows)
    if len(unsup) > 2:
        out["criterion/pearson_semantic_p1"] = pearson(
            np.array([rows[n]["semantic"] for n in unsup]),
            np.array([rows[n][key] for n in unsup]))
    return out


def format_unsupervised(rows: dict, hits: dict, comparisons: dict[str, float],
                        cfg, bed, u, pools) -> str:
    src = bed.src_lang
    metric, what = measure(cfg)[0], measure(cfg)[1].format(src=src)
    header = (f"Unsupervised {src}→en on the unpaired Bible ({cfg.protocol}: {src} from "
              f"{len(u.src_verses)} verses, en from {len(u.tgt_verses)}"
              + {"disjoint": ", disjoint",
                 "comparable": ", the same verses, each language sampled on its own",
                 "pairs-permuted": "; rows: aligned word pairs, English permuted"}[cfg.protocol]
              + f"; pools of {len(pools.x)} tokens per language"
              + (f", ≤ {cfg.per_type} per type" if cfg.protocol != "pairs-permuted" else "")
              + "); "
              f"held-out: {len(bed.test.corpus)} verses; supervised rows use the paired "
              f"{len(bed.train)} verses ({len(bed.x)} aligned word pairs)")
    table = format_table([(n, r) for n, r in rows.items()],
                         columns(src, "en") + [Column("semantic", "semantic", scale=1, digits=3),
                                    Column("seconds", "seconds", scale=1, digits=0)])
    out = [header, "", table, ""]
    for ref, key, ref_name in reference_rows():
        if ref not in hits:
            continue
        items = "test verses" if metric.startswith("retrieval") else "gold occurrences"
        out.append(f"{what} against {ref_name} (points; paired bootstrap 95% CI over the {items}, "
                   f"{cfg.bootstrap_samples} resamples):")
        for name in hits:
            if name != ref:
                d, lo, hi = (comparisons[f"{name}/vs_{key}{end}"] for end in ("", "_lo", "_hi"))
                out.append(f"  {name:<44} {format_difference(d, lo, hi)}")
        out.append("")
    judged = {n: [r[k] for k in sorted((k for k in r if k.startswith("precision_r")),
                                       key=lambda k: int(k[len("precision_r"):]))]
              for n, r in rows.items()}
    judged = {n: ps for n, ps in judged.items() if ps}
    if judged:
        truth = ("the aligned pair" if cfg.protocol == "pairs-permuted"
                 else "a FreeDict entry")
        out.append(f"Self-training's induced pairs that are {truth}, per round (%; reported "
                   "only, the round is chosen by the semantic criterion):")
        out += [f"  {n:<44} " + " → ".join(f"{100 * p:.1f}" for p in ps) for n, ps in judged.items()]
        out.append("")
    pick = criterion_pick(rows)
    if pick is not None:
        vs = ("" if pick == "center" else ", against center " + format_difference(
            *(comparisons[f"{pick}/vs_center{end}"] for end in ("", "_lo", "_hi"))))
        out.append(f"The route the label-free criterion picks among the {len(unsupervised_rows(rows))}"
                   f" unsupervised rows (center included): {pick}, {what} "
                   f"{100 * rows[pick][metric]:.1f}{vs}")
    if "criterion/pearson_semantic_p1" in comparisons:
        out.append(f"Label-free semantic criterion vs held-out {what} across the "
                   f"{len(unsupervised_rows(rows))} unsupervised rows: Pearson "
                   f"{comparisons['criterion/pearson_semantic_p1']:+.2f}")
    return "\n".join(out)
