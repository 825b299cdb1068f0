"""The table ``crossalign joint-align`` prints: every row, each against ``center > clp`` (on
the chosen measure), TEXT's effect, and each fine-tuning's selected step and pivot drift."""
from __future__ import annotations

import numpy as np

from alignment.evaluation.retrieval import columns, paired_bootstrap
from alignment.signature import EncoderSignature, TableSignature
from alignment.mappings import BASELINE

from train.runs.reporting import Column, format_against, format_difference, format_table


def joint_align_columns(src: str) -> list:
    return [*columns(src, "en"), ("en_cosine", "en cos f0"), Column("minutes", "min", scale=1)]


def joint_align_deltas(hits: dict[str, np.ndarray], text_rows: dict[str, str], resamples: int,
                       seed: int) -> dict[str, dict[str, tuple[float, float, float]]]:
    """Per row, (difference, low, high) against ``center > clp`` (``delta_vs_baseline``) and,
    for a TEXT row, against the same row without TEXT (``text_delta``)."""
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    for name, h in hits.items():
        if BASELINE in hits and name != BASELINE:
            out.setdefault(name, {})["delta_vs_baseline"] = paired_bootstrap(
                h, hits[BASELINE], resamples, seed)
        if name in text_rows and text_rows[name] in hits:
            out.setdefault(name, {})["text_delta"] = paired_bootstrap(
                h, hits[text_rows[name]], resamples, seed)
    return out


def delta_metrics(deltas: dict) -> dict[str, float]:
    """``joint_align_deltas`` as flat metrics: NAME/KIND, NAME/KIND_lo, NAME/KIND_hi."""
    names = {"delta_vs_baseline": ("delta_vs_baseline", "delta_lo", "delta_hi"),
             "text_delta": ("text_delta", "text_delta_lo", "text_delta_hi")}
    return {f"{row}/{key}": value for row, kinds in deltas.items() for kind, triple in kinds.items()
            for key, value in zip(names[kind], triple)}


def format_joint_align(rows, hits, deltas, drift, cfg, bed, encoder) -> str:
    """The table, from the rows and the run's ``JointAlignConfig``."""
    ident = encoder.identity()
    header = (f"Joint-Align on the Bible {bed.src_lang}–en: {cfg.encoder} layer {encoder.layer}, "
              f"{cfg.pooling}-subword pooling; {len(bed.train)} training verses, "
              f"{len(bed.test.corpus)} held-out verses; fine-tuning: {cfg.epochs} epoch"
              f"{'s' if cfg.epochs != 1 else ''}, batch "
              f"{cfg.batch_size}, lr {cfg.lr}, pivot regulariser {cfg.reg_weight}, the step chosen "
              f"by the {cfg.criterion} criterion on {cfg.val_verses} dev verses every "
              f"{cfg.val_every} steps; every Joint-Align row is evaluated through its export")
    text = (f"\n{header}\n\n"
            f"{format_table(list(rows.items()), joint_align_columns(bed.src_lang))}\n")
    text += ("\nmin: wall-clock minutes of the fit on this machine (Joint-Align: fine-tuning, "
             "selection and export); en cos f0: mean cosine (×100) of the held-out English "
             "word vectors as the row delivers them (encoder, then map or head) to the original "
             "model's (100 = unchanged)\n")
    if BASELINE in hits:
        cbli = cfg.measure == "cbli"
        text += "\n" + format_against(BASELINE, {
            name: deltas[name]["delta_vs_baseline"] for name in hits if name != BASELINE},
            cfg.bootstrap_samples, "CBLI" if cbli else f"{bed.src_lang}→en",
            "CBLI gold occurrences" if cbli else "test verses")
    with_text = [n for n in hits if n in deltas and "text_delta" in deltas[n]]
    if with_text:
        measure = "CBLI" if cfg.measure == "cbli" else "es→en"
        text += (f"\nTEXT's effect: each ⊕ TEXT row against the same row without TEXT ({measure} P@1, "
                 "points, same test verses; paired bootstrap 95% CI):\n")
        width = max(len(n) for n in with_text)
        for name in with_text:
            text += f"  {name:<{width}} {format_difference(*deltas[name]['text_delta'])}\n"
    for name, m in drift.items():
        text += (f"\n{name}: selected step {int(m.get('selected_step', -1))} "
                 f"({cfg.criterion} {m.get('selected_value', float('nan')):.4f}); at the last "
                 f"validation the English dev tokens were at mean squared distance "
                 f"{m.get('pivot_drift', float('nan')):.2f} from f0 (cosine "
                 f"{m.get('pivot_cosine', float('nan')):.4f})")
    sig = TableSignature(EncoderSignature.of(ident), ident.pool_label, bed.train.fingerprint())
    return text + f"\n\nsignature: {sig}\n"
