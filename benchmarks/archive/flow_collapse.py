"""Why the uncentred dual Real-NVP (``realnvp``, the paper's form) collapses on the Bible: train
it on compare's data (same split, pair sample and validation pairs) and record, per epoch,
each loss term and its spread over the epoch's steps, the largest step loss, the semantic
criterion and held-out P@1 — for the default and one change at a time (learning rate, no
density term, no passive dimensions, centred input). Prints a table and
writes JSON.

    python benchmarks/archive/flow_collapse.py --out checkpoints/flow-collapse
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch

from alignment.atomic import atomic_path
from alignment.evaluation.retrieval import evaluate_mapping
from train.data.paired import PairedVectorDataModule
from train.experiments.comparison_config import CompareConfig
from train.experiments.testbed import BibleConfig, prepare_bible
from train.fitting.in_process import fit_module
from alignment.data.vectors import aligned_pairs

VARIANTS = {
    "realnvp (default: lr 1e-3, nll 0.1, dual)": ("realnvp", {}),
    "lr 1e-4": ("realnvp", {"lr": 1e-4}),
    "nll_weight 0": ("realnvp", {"nll_weight": 0.0}),
    "no passive dimensions": ("realnvp", {"constant_rel_std": 0.0}),
    "centred (center > realnvp)": ("center > realnvp", {}),
}


class StepRecorder(pl.Callback):
    """Every training step's loss terms, and per epoch the held-out P@1 and the criteria."""

    def __init__(self, test, lexicon) -> None:
        self.test, self.lexicon = test, lexicon
        self.steps: list[dict[str, float]] = []
        self.epochs: list[dict[str, float]] = []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        with torch.no_grad():
            parts = pl_module.loss(batch[0], batch[1])
        self.steps.append({k: float(v) for k, v in parts.items()} | {"epoch": trainer.current_epoch})

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items() if v.numel() == 1}
        result = evaluate_mapping(self.test, pl_module.mapping, self.lexicon)
        self.epochs.append({"epoch": trainer.current_epoch, "semantic": metrics.get("semantic", np.nan),
                            "p1": 100 * result["retrieval_cosine_src2tgt"]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="checkpoints/flow-collapse")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args()
    cfg = CompareConfig()  # compare's defaults: 50,000 pairs, dev-verse validation, seed 0
    bed = prepare_bible(BibleConfig(data_dir=cfg.data_dir, train_verses=cfg.train_verses,
                                    test_verses=cfg.test_verses, seed=cfg.seed), with_dev=True)
    rng = np.random.default_rng(cfg.seed)
    keep = np.sort(rng.choice(len(bed.x), cfg.max_pairs, replace=False))
    x, y = bed.x[keep], bed.y[keep]
    val_x, val_y, _ = aligned_pairs(bed.dev.src, bed.dev.tgt, bed.dev.alignments)
    pick = np.sort(rng.choice(len(val_x), min(int(cfg.val_fraction * len(x)), len(val_x)),
                              replace=False))
    results = {}
    for label in args.variants:
        method, settings = VARIANTS[label]
        torch.manual_seed(cfg.seed)
        dm = PairedVectorDataModule.from_arrays(x, y, val=(val_x[pick], val_y[pick]),
                                                batch_size=512, shuffle=True, seed=cfg.seed)
        rec = StepRecorder(bed.test, bed.lexicon)
        start = time.perf_counter()
        fit_module(method, dm, args.epochs, callbacks=[rec], **settings)
        results[label] = {"steps": rec.steps, "epochs": rec.epochs,
                          "seconds": time.perf_counter() - start}
        print(f"{label}: {time.perf_counter() - start:.0f} s", flush=True)
    table = format_table(results)
    print(table)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(out / "results.json") as tmp:
        Path(tmp).write_text(json.dumps(results))
    with atomic_path(out / "table.txt") as tmp:
        Path(tmp).write_text(table + "\n")


def format_table(results: dict) -> str:
    head = (f"{'variant':42} {'ep':>2} {'loss mean':>10} {'median':>9} {'max step':>10} "
            f"{'nll mean':>9} {'semantic':>8} {'P@1':>5}")
    lines = [head, "-" * len(head)]
    for label, r in results.items():
        for e in r["epochs"]:
            steps = [s for s in r["steps"] if s["epoch"] == e["epoch"]]
            loss = np.array([s["loss"] for s in steps])
            nll = np.array([s.get("nll", np.nan) for s in steps])
            lines.append(f"{label:42} {e['epoch'] + 1:>2} {loss.mean():10.4g} {np.median(loss):9.4g} "
                         f"{loss.max():10.4g} {np.nanmean(nll) if np.isfinite(nll).any() else np.nan:9.4g} "
                         f"{e['semantic']:8.3f} {e['p1']:5.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
