"""``crossalign simulate``: the CBLI simulation over a grid of (t, k, ε) and seeds, every method,
through the same bring-your-own-vectors DataModule as real data."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from alignment.catalogue import check_choice
from alignment.evaluation.criteria import CRITERIA
from alignment.errors import InputError, TrainingDiverged
from alignment.mappings import BASELINE, parse_method, parse_methods
from alignment.data.simulation import PROTOCOLS, SHIFTS, simulate, word_p1

from train.callbacks import CollapseGuard
from train.data.paired import PairedVectorDataModule
from train.fitting.plan import plan_fit
from train.fitting.fitters import check_settings
from train.runs.reporting import report
from .shared import VARIANTS_HELP
from .unpaired_simulation import (GAN_METHOD, self_training_config, distance_summary, fit_unpaired,
                                format_distances,
                                format_round_precisions, round_precisions,
                                unpaired_labels)

# the trained maps at 2-D toy-language size, written as the variants they are (the table says
# exactly what ran; the registry's defaults are sized for encoder vectors)
DEFAULT_METHODS = ["clp", "center > clp", "linear", "fcnn:lr=0.005,hidden=64",
                   "realnvp:transforms=4,hidden=64"]
TRUE_MAP = "true map (ceiling)"


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
    protocol: str = field(default="paired", metadata={"help": "paired: test targets are the "
                          "true images of the test sources (the true map scores 100%); fresh: "
                          "other occurrences of the same words (crossalign 0.1)"})
    shift: str = field(default="components", metadata={"help": "components: ε on every "
                       "coordinate (the paper); direction: ε along one random unit vector (0.1)"})
    criterion: str | None = field(default="semantic", metadata={"help": "epoch selection on "
                                  "paired validation occurrences (ε = 0): semantic, structural, "
                                  "spectrum, val_p1, or none for the last epoch"})
    unsupervised: bool = field(default=False, metadata={"help": "add GAN-Real-NVP trained on "
                               "unpaired occurrences, alone and after self-training"})
    gan_method: str = field(default=GAN_METHOD, metadata={"help": "the adversarial map and its "
                            "settings (with --unsupervised); a muse:... string gives the linear "
                            "control"})
    gan_map_steps: int = field(default=2000, metadata={"help": "GAN-Real-NVP's budget in map "
                               "updates (each after critic_steps critic updates)"})
    rounds: int = field(default=10, metadata={"help": "self-training rounds (paper: 10 here)"})
    self_training_refit: str = field(default="supervised", metadata={"old": "boot_refit",
        "help": "how self-training refits the flow: supervised (density matching on the "
                "induced pairs + the constraint) or adversarial (Algorithm 1 as published: "
                "the GAN's objective on the pools + the constraint on the induced pairs)"})
    self_training_map_steps: int = field(default=500, metadata={
        "help": "the adversarial refit's map updates a round", "old": "boot_map_steps"})
    out_dir: str = field(default="checkpoints/simulate", metadata={"flag": "out"})
    progress: bool = field(default=True, metadata={"help": "no progress bar"})


def run_simulation(cfg: SimulationConfig) -> dict[str, float]:
    """P@1 per (method, t, k, ε), averaged over seeds; writes table.txt, metrics.json, a figure."""
    from tqdm.auto import tqdm

    check_choice(cfg.protocol, PROTOCOLS, "protocol")
    check_choice(cfg.shift, SHIFTS, "shift")
    criterion = None if cfg.criterion in (None, "none", "null") else cfg.criterion
    if criterion is not None:
        CRITERIA.lookup(criterion)
    variants = parse_methods(cfg.methods)
    gan_spec = parse_method(cfg.gan_method, "gan_method")  # parsed once, used throughout
    for spec in [*variants.values(), *([gan_spec] if cfg.unsupervised else [])]:
        check_settings(spec)  # before any training
    results: dict[tuple, list[float]] = {}
    grid = [(t, k, s) for t in cfg.ts for k in cfg.ks for s in cfg.seeds]
    collapsed: dict[tuple, list[str]] = {}
    distances: dict[tuple[int, int], list] = {}
    rounds_of: dict[tuple[int, int], list] = {}
    gan_label, refined_label = unpaired_labels(gan_spec, cfg.self_training_refit)
    # self-training's settings, built (and checked) once, before any training
    self_training = (self_training_config(gan_spec, cfg.self_training_refit, cfg.rounds,
                                          cfg.self_training_map_steps)
                if cfg.unsupervised else None)
    for t, k, seed in tqdm(grid, desc="simulate", disable=not cfg.progress):
        train = simulate(t, k, 0.0, seed=seed, protocol=cfg.protocol, shift=cfg.shift)
        for eps in cfg.epsilons:  # the ceiling: the true map T on the test sources
            test = simulate(t, k, eps, seed=seed, protocol=cfg.protocol, shift=cfg.shift)
            results.setdefault((TRUE_MAP, t, k, eps), []).append(
                word_p1(test.y_test_true, test.y_test, test.word_test, test.word_test))
        for label, spec in variants.items():
            torch.manual_seed(seed)
            dm = PairedVectorDataModule.from_arrays(
                train.x_train, train.y_train, val=(train.x_val, train.y_val), batch_size=64,
                shuffle=True, seed=seed)
            plan = plan_fit(spec, cfg.epochs)
            callbacks = plan.callbacks(criterion, guard=True)
            guard = next((c for c in callbacks if isinstance(c, CollapseGuard)), None)
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="training collapsed")  # noted
                    mapping = plan.run(dm, callbacks).mapping
            except TrainingDiverged:
                mapping = None  # recorded as NaN: the table says "div"
            if guard is not None and guard.collapsed_epoch is not None:
                collapsed.setdefault((label, t, k), []).append(
                    f"seed {seed} at epoch {guard.collapsed_epoch}")
            _score(results, label, t, k, seed, mapping, cfg)
        if cfg.unsupervised:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*(Checkpoint directory).*")
                gan, refined, trace, records = fit_unpaired(train, gan_spec, seed,
                                                            cfg.gan_map_steps, self_training)
            distances.setdefault((t, k), []).append(trace)
            rounds_of.setdefault((t, k), []).append(records)
            _score(results, gan_label, t, k, seed, gan, cfg)
            _score(results, refined_label, t, k, seed, refined, cfg)
    metrics = {f"{m}/t{t}/k{k}/eps{e:g}": float(np.mean(v)) for (m, t, k, e), v in results.items()}
    if len(cfg.seeds) > 1:  # the 95% interval's half-width over seeds
        metrics.update({f"{m}/t{t}/k{k}/eps{e:g}/ci95": seed_interval(v)
                        for (m, t, k, e), v in results.items()})
    for (t, k), traces in distances.items():
        metrics.update({f"{gan_label}/t{t}/k{k}/{name}": value
                        for name, value in distance_summary(traces).items()})
    precisions = {key: round_precisions(runs) for key, runs in rounds_of.items()}
    for (t, k), ps in precisions.items():
        metrics.update({f"{refined_label}/t{t}/k{k}/precision_r{r}": p for r, p in enumerate(ps, 1)})
    labels = [TRUE_MAP, *variants] + ([gan_label, refined_label] if cfg.unsupervised else [])
    text = format_simulation(results, cfg, labels, collapsed)
    if distances:
        text += "\n\n" + format_distances(distances, gan_label)
    if precisions:
        text += "\n\n" + format_round_precisions(precisions, refined_label)
    report(text, metrics, cfg.out_dir, cfg)
    plot_simulation(results, cfg, labels, Path(cfg.out_dir) / "p1_vs_eps.png")
    return metrics


def _score(results: dict, label: str, t: int, k: int, seed: int, mapping, cfg) -> None:
    """Test P@1 of ``mapping`` at every ε (NaN when it diverged)."""
    for eps in cfg.epsilons:
        test = simulate(t, k, eps, seed=seed, protocol=cfg.protocol, shift=cfg.shift)
        if mapping is None:
            p1 = float("nan")
        else:
            with torch.no_grad():  # both sides through the map (centring moves the targets too)
                mapped = mapping(torch.from_numpy(test.x_test)).numpy()
                targets = mapping.map_target(torch.from_numpy(test.y_test)).numpy()
            p1 = word_p1(mapped, targets, test.word_test, test.word_test) \
                if np.isfinite(mapped).all() and np.isfinite(targets).all() else float("nan")
        results.setdefault((label, t, k, eps), []).append(p1)


def seed_interval(values: list[float]) -> float:
    """Half-width of the 95% t-interval of the mean over seeds (NaN with one seed)."""
    from scipy import stats

    v = np.asarray(values, dtype=float)
    if len(v) < 2 or not np.isfinite(v).all():
        return float("nan")
    return float(stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))


def format_simulation(results: dict, cfg: SimulationConfig, labels: list[str],
                      collapsed: dict[tuple, list[str]] | None = None) -> str:
    width = max(9, *(len(m) for m in labels))
    cell = 13 if len(cfg.seeds) > 1 else 6
    head = f"{'method':{width}} {'t':>2} {'k':>4}  " + "  ".join(
        f"{f'ε={e:g}':<{cell}}" for e in cfg.epsilons)
    lines = [f"CBLI simulation: P@1 (%), mean over {len(cfg.seeds)} seeds"
             + (" ± the 95% t-interval's half-width" if len(cfg.seeds) > 1 else "")
             + f" (div: training diverged in at least one seed); protocol {cfg.protocol}, shift "
             f"{cfg.shift}, epoch by {cfg.criterion or 'none (last epoch)'} on validation "
             "occurrences; t > 1 is our swirl construction (not comparable with the paper's t)",
             head, "-" * len(head)]
    for t in cfg.ts:
        for k in cfg.ks:
            for name in labels:
                cells = "  ".join(f"{_cell(results[(name, t, k, e)]):<{cell}}"
                                  for e in cfg.epsilons)
                note = (collapsed or {}).get((name, t, k))
                lines.append(f"{name:{width}} {t:>2} {k:>4}  {cells}"
                             + (f"  (collapsed: {', '.join(note)}; best epoch kept)" if note else ""))
    if BASELINE in labels and len(cfg.seeds) > 1:
        lines += ["", f"against {BASELINE} (P@1 points, mean difference over the same seeds ± "
                  "the 95% t-interval's half-width; a method wins or loses where the interval "
                  "excludes 0)"]
        for t in cfg.ts:
            for k in cfg.ks:
                for name in labels:
                    if name in (BASELINE, TRUE_MAP):
                        continue
                    diffs = [[100 * (a - b) for a, b in zip(results[(name, t, k, e)],
                                                          results[(BASELINE, t, k, e)])]
                             for e in cfg.epsilons]
                    cells = "  ".join(f"{_difference(d):<{cell}}" for d in diffs)
                    lines.append(f"{name:{width}} {t:>2} {k:>4}  {cells}")
    return "\n".join(lines)


def _cell(values: list[float]) -> str:
    mean = np.mean(values)
    if np.isnan(mean):
        return "div"
    half = seed_interval(values)
    return f"{100 * mean:5.1f}" + ("" if np.isnan(half) else f" ±{100 * half:4.1f}")


def _difference(diffs: list[float]) -> str:
    mean = np.mean(diffs)
    if np.isnan(mean):
        return "div"
    half = seed_interval([d / 100 for d in diffs]) * 100
    return f"{mean:+5.1f} ±{half:4.1f}"


def plot_simulation(results: dict, cfg: SimulationConfig, labels: list[str], path: Path) -> None:
    """P@1 against ε, one panel for t = 1 (isomorphic) and one for the largest t."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return  # the figure is optional here; table and metrics are written regardless
    from train.runs.figures import save_figure

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
