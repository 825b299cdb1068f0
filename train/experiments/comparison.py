"""``crossalign compare``: Rotation, linear, FCNN and Real-NVP on the Bible test bed (any pair
and encoder), each trained method selected by the semantic criterion, the structural
criterion, a fixed number of epochs, or a labelled validation split — the shape of Zhao & Eger
2022's Table 2 — plus how each criterion tracks held-out P@1 over epochs."""
from __future__ import annotations

import tempfile
import time
import warnings
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch

from alignment.evaluation.correlation import pearson
from alignment.evaluation.criteria import CRITERIA
from alignment.atomic import atomic_path
from alignment.errors import InputError, TrainingDiverged
from alignment.evaluation.retrieval import (cbli_hits, evaluate_mapping, paired_bootstrap,
                                            retrieval_hits)
from alignment.mappings import BASELINE, parse_method, parse_methods
from alignment.data.vectors import aligned_pairs

from train.callbacks import CollapseGuard, SelectByCriterion
from train.data.paired import PairedVectorDataModule
from train.fitting.in_process import fit_method
from train.fitting.fitters import check_settings
from train.runs.reporting import report
from .comparison_config import SELECTIONS, CompareConfig, training_seeds
from .comparison_report import format_compare, format_differences, format_head_to_head
from .seed_runs import SeedRun, load_seed_run, save_seed_run, seed_signature
from .testbed import prepare_bible

class EvaluateEachEpoch(pl.Callback):
    """Held-out test metrics of the mapping after every epoch (after that epoch's validation),
    for the criterion-tracking correlations and the rows each selection rule picks."""

    def __init__(self, test, lexicon) -> None:
        self.test, self.lexicon = test, lexicon
        self.results: list[dict[str, float]] = []
        self.hits: list[np.ndarray] = []
        self.word_hits: list[np.ndarray] = []
        self.criteria: list[dict[str, float]] = []

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        self.criteria.append({k: float(v) for k, v in trainer.callback_metrics.items()
                              if v.numel() == 1})
        self.results.append(evaluate_mapping(self.test, pl_module.mapping, self.lexicon))
        self.hits.append(retrieval_hits(self.test, pl_module.mapping))
        self.word_hits.append(cbli_hits(self.test, pl_module.mapping))


def run_compare(cfg: CompareConfig) -> dict[str, float]:
    specs = parse_methods(cfg.methods)
    if BASELINE not in specs:  # its row is always there (BASELINE is its own label)
        specs = {BASELINE: parse_method(BASELINE), **specs}
    for spec in specs.values():
        check_settings(spec)  # every variant's settings, before the expensive part
    if cfg.validation not in ("dev", "train"):
        raise InputError(f"must be dev or train, got '{cfg.validation}'", parameter="validation")
    if not 0 < cfg.val_fraction < 1:
        raise InputError(f"must be in (0, 1), got {cfg.val_fraction}", parameter="val_fraction")
    seeds = training_seeds(cfg)
    bed = prepare_bible(cfg, with_dev=cfg.validation == "dev")  # sets the corpus used
    runs = [kept_or_fitted(cfg, bed, specs, seed) for seed in seeds]
    rows, hits, word_hits, notes, tracking = merge_seeds(runs, seeds)
    diffs = {label: paired_bootstrap(h, hits[BASELINE], cfg.bootstrap, cfg.seed)
             for label, h in hits.items() if label != BASELINE}
    word_diffs = {label: paired_bootstrap(h, word_hits[BASELINE], cfg.bootstrap, cfg.seed)
                  for label, h in word_hits.items() if label != BASELINE}
    per_seed = {label: [float(run.hits[label].mean() - run.hits[BASELINE].mean()) for run in runs]
                for label in diffs} if len(seeds) > 1 else {}
    flat = {f"{k}/{m}": v for k, r in rows.items() for m, v in r.items()}
    flat.update({f"tracking/{k}": v for k, v in tracking.items()})
    for name, table in (("vs_baseline", diffs), ("cbli_vs_baseline", word_diffs)):
        for label, (d, lo, hi) in table.items():
            flat.update({f"{label}/{name}": d, f"{label}/{name}_lo": lo,
                         f"{label}/{name}_hi": hi})
    if len(seeds) > 1:
        for seed, run in zip(seeds, runs):
            flat.update({f"seed{seed}/{k}/{m}": v for k, r in run.rows.items()
                         for m, v in r.items()})
    text = format_compare(rows, tracking, cfg, list(specs), notes, seeds)
    text += "\n\n" + format_differences(rows, diffs, BASELINE, cfg, list(specs), notes, per_seed)
    text += "\n\n" + format_differences(rows, word_diffs, BASELINE, cfg, list(specs), notes,
                                        measure="cbli_p1")
    best = best_row(hits, BASELINE)
    if best is not None:  # is the best row ahead of the others, or only of the baseline?
        ahead = {label: paired_bootstrap(hits[best], h, cfg.bootstrap, cfg.seed)
                 for label, h in hits.items() if label not in (best, BASELINE)}
        flat.update({f"{label}/best_minus_this{s}": v for label, d in ahead.items()
                     for s, v in zip(("", "_lo", "_hi"), d)})
        text += "\n\n" + format_head_to_head(best, ahead, cfg)
    report(text, flat, cfg.out_dir, cfg)
    if cfg.out_dir is not None:
        save_hits(Path(cfg.out_dir) / "hits.npz", runs, seeds)
    return flat


def kept_or_fitted(cfg: CompareConfig, bed, specs: dict, seed: int) -> SeedRun:
    """This seed's rows, reused from ``out/seeds/`` when a finished run with the same
    settings is kept there, else fitted and kept as soon as they are done."""
    if cfg.out_dir is None:
        return fit_rows(cfg, bed, specs, seed)
    settings = {k: v for k, v in asdict(cfg).items()
                if k not in ("out_dir", "seeds", "bootstrap", "progress", "cache_dir")}
    signature = seed_signature(settings, seed)
    folder = Path(cfg.out_dir) / "seeds"
    run = load_seed_run(folder, seed, signature)
    if run is not None:
        print(f"seed {seed}: reusing the finished run kept in {folder}")
        return run
    run = fit_rows(cfg, bed, specs, seed)
    save_seed_run(folder, seed, signature, run)
    return run


def best_row(hits: dict[str, np.ndarray], base: str) -> str | None:
    """The row with the highest mean held-out P@1 other than the baseline; None when fewer
    than two such rows exist (nothing to set it against)."""
    others = {label: float(h.mean()) for label, h in hits.items() if label != base}
    return max(others, key=others.get) if len(others) > 1 else None


def save_hits(path: Path, runs: list[SeedRun], seeds: list[int]) -> None:
    """Per-verse held-out hits (semantic-selected epoch) of every row and seed, so any two rows
    can be compared later without refitting; plain arrays, read with ``allow_pickle=False``."""
    arrays = {f"seed{seed}/{label}": hits.astype(np.float32)
              for seed, run in zip(seeds, runs) for label, hits in run.hits.items()}
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)


def merge_seeds(runs: list[SeedRun], seeds: list[int]) -> tuple[dict, dict, dict, dict, dict]:
    """One seed: its run as it is. Several: every metric and tracking value averaged over the
    seeds, per-verse (and per-occurrence) hits averaged (a verse solved in 2 of 3 seeds counts
    2/3), notes kept with their seed."""
    if len(runs) == 1:
        run = runs[0]
        return run.rows, run.hits, run.word_hits, run.notes, run.tracking
    rows = {key: {m: float(np.mean([run.rows[key][m] for run in runs if m in run.rows[key]]))
                  for m in runs[0].rows[key]} for key in runs[0].rows}
    hits, word_hits = ({label: np.mean([getattr(run, kind)[label] for run in runs], axis=0)
                        for label in getattr(runs[0], kind)
                        if all(label in getattr(run, kind) for run in runs)}
                       for kind in ("hits", "word_hits"))
    notes: dict[str, str] = {}
    for seed, run in zip(seeds, runs):
        for label, note in run.notes.items():
            notes[label] = "; ".join(filter(None, [notes.get(label), f"seed {seed}: {note}"]))
    tracking = {k: mean_of_finite([run.tracking.get(k, np.nan) for run in runs])
                for k in runs[0].tracking}
    return rows, hits, word_hits, notes, tracking


def mean_of_finite(values: list[float]) -> float:
    """The mean of the finite values; NaN when there are none."""
    finite = [v for v in values if np.isfinite(v)]
    return float(np.mean(finite)) if finite else float("nan")


def fit_rows(cfg: CompareConfig, bed, specs: dict, seed: int) -> SeedRun:
    """Every method fitted with one training seed: the seeded pair sample, validation pairs,
    initialisation and batch order."""
    x, y = bed.x, bed.y
    rng = np.random.default_rng(seed)
    if len(x) > cfg.max_pairs:
        keep = np.sort(rng.choice(len(x), cfg.max_pairs, replace=False))
        x, y = x[keep], y[keep]
    n_val = int(cfg.val_fraction * len(x))
    if cfg.validation == "train":
        order = rng.permutation(len(x))
        val_x, val_y = x[order[:n_val]], y[order[:n_val]]
        x, y = x[order[n_val:]], y[order[n_val:]]
    else:  # pairs of the dev verses: the labelled criterion is not scored on training verses
        val_x, val_y, _ = aligned_pairs(bed.dev.src, bed.dev.tgt, bed.dev.alignments)
        pick = np.sort(rng.choice(len(val_x), min(n_val, len(val_x)), replace=False))
        val_x, val_y = val_x[pick], val_y[pick]
    rows: dict[str, dict[str, float]] = {}
    hits: dict[str, np.ndarray] = {}  # per test verse, semantic-selected (label-free) epoch
    word_hits: dict[str, np.ndarray] = {}  # per CBLI gold occurrence, the same epoch
    notes: dict[str, str] = {}
    tracking: dict[str, float] = {}
    for label, spec in specs.items():
        start = time.perf_counter()
        dm = PairedVectorDataModule.from_arrays(x, y, val=(val_x, val_y),
                                                batch_size=512, shuffle=True, seed=seed)
        if spec.trained is None:
            mapping = fit_method(spec, dm)
            result = {**evaluate_mapping(bed.test, mapping, bed.lexicon),
                      "seconds": time.perf_counter() - start}
            rows.update({f"{label}/{sel}": result for sel in SELECTIONS})
            hits[label] = retrieval_hits(bed.test, mapping)
            word_hits[label] = cbli_hits(bed.test, mapping)
            continue
        torch.manual_seed(seed)
        each = EvaluateEachEpoch(bed.test, bed.lexicon)
        guard = CollapseGuard()
        with tempfile.TemporaryDirectory() as tmp:
            selectors = {sel: SelectByCriterion(crit, dirpath=f"{tmp}/{sel}", save_last=False)
                         for sel, crit in SELECTIONS.items()}
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="training collapsed")  # a note below
                    fit_method(spec, dm, cfg.epochs, callbacks=[each, guard, *selectors.values()],
                               semantic_top=1000)
            except TrainingDiverged as err:
                print(f"{label}: {err}")
                nan = {"retrieval_cosine_src2tgt": float("nan"), "cbli_p1": float("nan")}
                rows.update({f"{label}/{sel}": nan for sel in SELECTIONS})
                notes[label] = "diverged"
                continue
        seconds = time.perf_counter() - start
        if guard.collapsed_epoch is not None:
            notes[label] = f"collapsed at epoch {guard.collapsed_epoch}"
        # the best epoch by held-out P@1 itself (an oracle no rule can use): how far each
        # rule's pick falls short of it
        oracle = max(r["retrieval_cosine_src2tgt"] for r in each.results)
        for sel, selector in selectors.items():
            epoch = selector.best_epoch
            rows[f"{label}/{sel}"] = {**each.results[epoch], "epoch": float(epoch),
                                      "seconds": seconds, "oracle_retrieval": oracle}
        hits[label] = each.hits[selectors["semantic"].best_epoch]
        word_hits[label] = each.word_hits[selectors["semantic"].best_epoch]
        test_p1 = np.array([m["retrieval_cosine_src2tgt"] for m in each.results])
        for key in CRITERIA:
            crit = np.array([m[key] for m in each.criteria])
            tracking[f"{label}/{key}"] = pearson(crit, test_p1) if len(crit) > 2 else float("nan")
    return SeedRun(rows, hits, notes, tracking, word_hits)


