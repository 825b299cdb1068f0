"""``crossalign compare``: Rotation, linear, FCNN and Real-NVP on the Bible test bed, each
trained method selected by the semantic criterion, the structural criterion, a fixed number of
epochs, or a labelled validation split — the shape of Zhao & Eger 2022's Table 2 — plus how
each criterion tracks held-out P@1 over epochs."""
from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch

from alignment.atomic import write_text
from alignment.correlation import pearson
from alignment.errors import TrainingDiverged
from alignment.evaluation import evaluate_mapping

from .datamodule import PairedVectorDataModule
from .demo import DemoConfig, prepare_demo_data
from .fitting import fit_any, quiet_trainer
from .gradient import GradientMapping
from .variants import parse_variants

SELECTIONS = {"semantic": ("semantic", max), "structural": ("structural", min),
              "fixed": (None, None), "labelled": ("val_p1", max)}


@dataclass
class CompareConfig:
    data_dir: str = "data/bible"
    out_dir: str = "checkpoints/compare"
    train_verses: int = 10000
    max_pairs: int = 50000
    val_fraction: float = 0.05
    epochs: int = 6
    seed: int = 0
    methods: list[str] = field(default_factory=lambda: ["clp", "linear", "fcnn", "realnvp"])


class EpochSnapshots(pl.Callback):
    """Keeps each epoch's mapping weights and logged criteria (after that epoch's validation)."""

    def __init__(self) -> None:
        self.states: list[dict] = []
        self.metrics: list[dict[str, float]] = []

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        self.states.append(copy.deepcopy(pl_module.mapping.state_dict()))
        self.metrics.append({k: float(v) for k, v in trainer.callback_metrics.items() if v.numel() == 1})


def run_compare(cfg: CompareConfig) -> dict[str, float]:
    variants = parse_variants(cfg.methods)
    demo = DemoConfig(data_dir=cfg.data_dir, train_verses=cfg.train_verses, seed=cfg.seed)
    x, y, _, test, lexicon = prepare_demo_data(demo)
    rng = np.random.default_rng(cfg.seed)
    if len(x) > cfg.max_pairs:
        keep = np.sort(rng.choice(len(x), cfg.max_pairs, replace=False))
        x, y = x[keep], y[keep]
    order = rng.permutation(len(x))
    n_val = int(cfg.val_fraction * len(x))
    val, train = order[:n_val], order[n_val:]
    rows: dict[str, dict[str, float]] = {}
    tracking: dict[str, dict[str, float]] = {}
    for label, (method, overrides) in variants.items():
        dm = PairedVectorDataModule.from_arrays(x[train], y[train], val=(x[val], y[val]),
                                                batch_size=512, shuffle=True, seed=cfg.seed)
        if method not in ("fcnn", "realnvp"):
            mapping = fit_any(method, dm)
            result = evaluate_mapping(test, mapping, lexicon)
            for sel in SELECTIONS:
                rows[f"{label}/{sel}"] = result
            continue
        torch.manual_seed(cfg.seed)
        module = GradientMapping(method, **{"semantic_top": 1000, **overrides})
        snaps = EpochSnapshots()
        try:
            quiet_trainer(max_epochs=cfg.epochs, callbacks=[snaps], num_sanity_val_steps=0).fit(module, datamodule=dm)
        except TrainingDiverged as err:
            print(f"{label}: {err}")
            for sel in SELECTIONS:
                rows[f"{label}/{sel}"] = {"retrieval_cosine_src2tgt": float("nan"), "cbli_p1": float("nan")}
            continue
        per_epoch = []
        for state in snaps.states:
            module.mapping.load_state_dict(state)
            per_epoch.append(evaluate_mapping(test, module.mapping, lexicon))
        for sel, (key, pick) in SELECTIONS.items():
            values = [m[key] for m in snaps.metrics] if key else None
            epoch = len(snaps.states) - 1 if key is None else values.index(pick(values))
            rows[f"{label}/{sel}"] = {**per_epoch[epoch], "epoch": float(epoch)}
        test_p1 = np.array([m["retrieval_cosine_src2tgt"] for m in per_epoch])
        for key in ("semantic", "structural", "val_p1"):
            crit = np.array([m[key] for m in snaps.metrics])
            tracking[f"{label}/{key}"] = pearson(crit, test_p1) if len(crit) > 2 else float("nan")
    text = format_compare(rows, tracking, cfg)
    print(text)
    out = Path(cfg.out_dir)
    write_text(out / "table.txt", text + "\n")
    flat = {f"{k}/{m}": v for k, r in rows.items() for m, v in r.items()}
    flat.update({f"tracking/{k}": v for k, v in tracking.items()})
    write_text(out / "metrics.json", json.dumps(flat, indent=2, sort_keys=True))
    write_text(out / "config.json", json.dumps(asdict(cfg), indent=2))
    return flat


def format_compare(rows: dict, tracking: dict, cfg: CompareConfig) -> str:
    width = max(9, *(len(m) for m in cfg.methods))
    lines = [f"Bible es–en, MiniLM L6: {cfg.max_pairs} training pairs max, {cfg.epochs} epochs; "
             "held-out retrieval P@1 (es→en) / CBLI P@1, by selection rule",
             f"{'method':{width}} " + "  ".join(f"{s:>15}" for s in SELECTIONS), "-" * (width + 68)]
    for label in cfg.methods:
        cells = []
        for sel in SELECTIONS:
            r = rows[f"{label}/{sel}"]
            cells.append("diverged" if np.isnan(r["retrieval_cosine_src2tgt"]) else
                         f"{100 * r['retrieval_cosine_src2tgt']:6.1f} / {100 * r['cbli_p1']:5.1f}")
        lines.append(f"{label:{width}} " + "  ".join(f"{c:>15}" for c in cells))
    if tracking:
        lines += ["", "Pearson over epochs between each criterion and held-out retrieval P@1:"]
        lines += [f"  {k}: {v:+.2f}" for k, v in tracking.items()]
    return "\n".join(lines)
