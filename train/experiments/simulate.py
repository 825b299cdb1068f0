"""``crossalign simulate``: the CBLI simulation over a grid of (t, k, ε) and seeds, every method,
through the same bring-your-own-vectors DataModule as real data."""
from __future__ import annotations

import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from alignment.errors import TrainingDiverged
from alignment.mappings import parse_methods
from alignment.simulation import simulate, word_p1

from ..callbacks import CollapseGuard
from ..datamodule import PairedVectorDataModule
from ..fitting import fit_method
from ..modules import check_settings
from ..reporting import report
from .compare import VARIANTS_HELP

DEFAULT_METHODS = ["clp", "linear", "fcnn", "realnvp"]
# settings sized for 2-D toy languages (a variant's own settings override them)
SETTINGS = {"realnvp": dict(lr=1e-3, transforms=4, hidden=64, nll_weight=0.1),
            "fcnn": dict(lr=5e-3, hidden=64)}


@dataclass
class SimulationConfig:
    ts: list[int] = field(default_factory=lambda: [1, 3], metadata={
        "flag": "t", "help": "transformations: 1 = rotation (isomorphic), >1 non-isomorphic"})
    ks: list[int] = field(default_factory=lambda: [10, 50],
                          metadata={"flag": "k", "help": "occurrences per word"})
    epsilons: list[float] = field(default_factory=lambda: [0.0, 1.0, 2.0, 3.0, 5.0], metadata={
        "flag": "eps", "help": "domain shifts of the test occurrences"})
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    methods: list[str] = field(default_factory=lambda: list(DEFAULT_METHODS),
                               metadata={"help": VARIANTS_HELP})
    epochs: int = 40
    out_dir: str = field(default="checkpoints/simulate", metadata={"flag": "out"})
    progress: bool = field(default=True, metadata={"help": "no progress bar"})


def run_simulation(cfg: SimulationConfig) -> dict[str, float]:
    """P@1 per (method, t, k, ε), averaged over seeds; writes table.txt, metrics.json, a figure."""
    from tqdm.auto import tqdm

    variants = parse_methods(cfg.methods)
    for spec in variants.values():
        check_settings(spec)  # before any training
    results: dict[tuple, list[float]] = {}
    grid = [(t, k, s) for t in cfg.ts for k in cfg.ks for s in cfg.seeds]
    collapsed: dict[tuple, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for t, k, seed in tqdm(grid, desc="simulate", disable=not cfg.progress):
            train = simulate(t, k, 0.0, seed=seed)
            path = Path(tmp) / f"t{t}-k{k}-s{seed}.npz"
            np.savez(path, src=train.x_train, tgt=train.y_train)
            for label, spec in variants.items():
                torch.manual_seed(seed)
                dm = PairedVectorDataModule(vectors=str(path), batch_size=64, shuffle=True, seed=seed)
                guard = CollapseGuard()
                try:
                    with warnings.catch_warnings():
                        warnings.filterwarnings("ignore", message="training collapsed")  # noted
                        mapping = fit_method(spec, dm, cfg.epochs,
                                             callbacks=[guard] if spec.trained else [],
                                             **SETTINGS.get(spec.name, {}))
                except TrainingDiverged:
                    mapping = None  # recorded as NaN: the table says "div"
                if guard.collapsed_epoch is not None:
                    collapsed.setdefault((label, t, k), []).append(
                        f"seed {seed} at epoch {guard.collapsed_epoch}")
                for eps in cfg.epsilons:
                    test = simulate(t, k, eps, seed=seed)
                    if mapping is None:
                        p1 = float("nan")
                    else:
                        with torch.no_grad():
                            mapped = mapping(torch.from_numpy(test.x_test)).numpy()
                        p1 = word_p1(mapped, test.y_test, test.word_test, test.word_test) \
                            if np.isfinite(mapped).all() else float("nan")
                    results.setdefault((label, t, k, eps), []).append(p1)
    metrics = {f"{m}/t{t}/k{k}/eps{e:g}": float(np.mean(v)) for (m, t, k, e), v in results.items()}
    labels = list(variants)
    report(format_simulation(results, cfg, labels, collapsed), metrics, cfg.out_dir, cfg)
    plot_simulation(results, cfg, labels, Path(cfg.out_dir) / "p1_vs_eps.png")
    return metrics


def format_simulation(results: dict, cfg: SimulationConfig, labels: list[str],
                      collapsed: dict[tuple, list[str]] | None = None) -> str:
    width = max(9, *(len(m) for m in labels))
    head = f"{'method':{width}} {'t':>2} {'k':>4}  " + "  ".join(f"ε={e:<4g}" for e in cfg.epsilons)
    lines = [f"CBLI simulation: P@1 (%) over {len(cfg.seeds)} seeds (div: training diverged in "
             "at least one seed)", head, "-" * len(head)]
    for t in cfg.ts:
        for k in cfg.ks:
            for name in labels:
                cells = "  ".join(_cell(results[(name, t, k, e)]) for e in cfg.epsilons)
                note = (collapsed or {}).get((name, t, k))
                lines.append(f"{name:{width}} {t:>2} {k:>4}  {cells}"
                             + (f"  (collapsed: {', '.join(note)}; best epoch kept)" if note else ""))
    return "\n".join(lines)


def _cell(values: list[float]) -> str:
    mean = np.mean(values)
    return "   div" if np.isnan(mean) else f"{100 * mean:6.1f}"


def plot_simulation(results: dict, cfg: SimulationConfig, labels: list[str], path: Path) -> None:
    """P@1 against ε, one panel for t = 1 (isomorphic) and one for the largest t."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return  # the figure is optional here; table and metrics are written regardless
    from ..plot import save_figure

    k = max(cfg.ks)
    panels = [min(cfg.ts), max(cfg.ts)] if len(cfg.ts) > 1 else cfg.ts
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8), squeeze=False)
    for ax, t in zip(axes[0], panels):
        for name in labels:
            ax.plot(cfg.epsilons, [100 * np.mean(results[(name, t, k, e)]) for e in cfg.epsilons],
                    marker="o", label=name)
        ax.set_title(f"t = {t} ({'isomorphic' if t == 1 else 'non-isomorphic'}), k = {k}")
        ax.set_xlabel("domain shift ε")
        ax.set_ylabel("P@1 (%)")
        ax.grid(alpha=0.3)
        ax.legend()
    save_figure(fig, path)
