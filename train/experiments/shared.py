"""What several experiments share: the supervised references they report beside their own
rows (and how those are fitted), and the help for method lists. Experiments import this and
``testbed``, never each other."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import torch

from alignment.catalogue import Registry
from alignment.errors import InputError
from alignment.evaluation.retrieval import cbli_hits, retrieval_hits
from alignment.mappings import BASELINE, Mapping
from alignment.data.vectors import aligned_pairs

from train.data.paired import PairedVectorDataModule
from train.fitting.in_process import fit_arrays
from train.fitting.plan import plan_fit
from .testbed import BibleConfig

VARIANTS_HELP = ("methods, or variants of a trained one with its fitter's settings "
                 "(realnvp:nll_weight=0,dual=false), run side by side")
SUPERVISED = [BASELINE, "clp_flow"]  # the strongest simple map and the best trained one
MEASURES = Registry.of("measure", {
    "retrieval": ("retrieval_cosine_src2tgt", "{src}→en P@1", retrieval_hits),
    "cbli": ("cbli_p1", "CBLI P@1", cbli_hits)})


def measure(cfg) -> tuple[str, str, object]:
    """(metrics key, name, per-item hits function) of the measure the comparisons use."""
    name = getattr(cfg, "measure", "retrieval")
    return MEASURES.lookup(name)


@dataclass
class ReferenceConfig(BibleConfig):
    """The test bed and the supervised references fitted on its paired training verses."""

    supervised: list[str] = field(default_factory=lambda: list(SUPERVISED), metadata={
        "help": "supervised reference methods, fitted on the paired training verses"})
    supervised_epochs: int = field(default=6, metadata={"help": "epochs of a trained reference"})
    max_pairs: int = field(default=50000, metadata={"help": "pairs for a trained reference"})
    val_tokens: int = field(default=5000, metadata={"help": "validation tokens (dev verses) per "
                                                    "language"})
    measure: str = field(default="retrieval", metadata={
        "help": "what the intervals and the criterion's pick compare: retrieval (sentence P@1) "
                "or cbli (word-in-context P@1; for encoders whose retrieval is near 100%)"})


def fit_supervised(spec, bed, cfg: ReferenceConfig) -> Mapping:
    """A supervised reference on the paired training verses; a trained one as ``compare``
    fits it (shuffled batches, at most ``max_pairs`` pairs, epoch chosen by the semantic
    criterion on dev-verse pairs, collapse guard)."""
    if spec.trained is None:
        return fit_arrays(bed.x, bed.y, spec)
    rng = np.random.default_rng(cfg.seed)
    x, y = at_most(bed.x, bed.y, cfg.max_pairs, rng)
    vx, vy, _ = aligned_pairs(bed.dev.src, bed.dev.tgt, bed.dev.alignments)
    pick = np.sort(rng.choice(len(vx), min(len(vx), cfg.val_tokens), replace=False))
    return fit_trained(spec, x, y, (vx[pick], vy[pick]), cfg)


def at_most(x: np.ndarray, y: np.ndarray, n: int, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray]:
    """A seeded sample of ``n`` pairs (in their order), or all when there are fewer."""
    if len(x) <= n:
        return x, y
    keep = np.sort(rng.choice(len(x), n, replace=False))
    return x[keep], y[keep]


def fit_trained(spec, x: np.ndarray, y: np.ndarray, val: tuple[np.ndarray, np.ndarray],
                cfg: ReferenceConfig) -> Mapping:
    """A trained method as ``compare`` fits one: shuffled batches, ``supervised_epochs``, the
    epoch chosen by the semantic criterion on ``val`` (label-free: pairs or unpaired pools),
    collapse guard."""
    dm = PairedVectorDataModule.from_arrays(x, y, val=val, batch_size=512, shuffle=True,
                                            seed=cfg.seed)
    plan = plan_fit(spec, cfg.supervised_epochs)
    torch.manual_seed(cfg.seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="training collapsed")
        return plan.run(dm, plan.callbacks("semantic", guard=True)).mapping
