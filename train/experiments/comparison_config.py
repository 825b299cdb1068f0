"""The settings of ``crossalign compare``: its default rows, selection rules and options."""
from __future__ import annotations

from dataclasses import dataclass, field

from alignment.errors import InputError
from alignment.mappings import BASELINE

from .shared import VARIANTS_HELP
from .testbed import BibleConfig

DEFAULT_METHODS = ["clp", BASELINE, "linear", "fcnn", "realnvp", "center > clp > fcnn:residual=true",
                   "clp_flow"]

# selection rule → criterion (None: the last epoch of a fixed budget)
SELECTIONS = {"semantic": "semantic", "structural": "structural", "fixed": None,
              "labelled": "val_p1"}


@dataclass
class CompareConfig(BibleConfig):
    """The test bed (any pair and encoder), the rows, their budget and the selection rules."""

    out_dir: str = field(default="checkpoints/compare", metadata={"flag": "out"})
    max_pairs: int = field(default=50000, metadata={"help": "training word pairs (a seeded sample)"})
    val_fraction: float = field(default=0.05, metadata={"help": "validation pairs for the criteria, "
                                                        "as a share of the training pairs"})
    validation: str = field(default="dev", metadata={"help": "where validation pairs come from: "
                                                     "dev (the dev verses, seen neither in training "
                                                     "nor in test) or train (held out from the "
                                                     "training verses' pairs, crossalign 0.1)"})
    epochs: int = 6
    seeds: list[int] | None = field(default=None, metadata={
        "help": "training seeds (pair sample, initialisation, batch order), the corpus split "
                "staying --seed's; several: every row is the mean over them and its interval a "
                "paired bootstrap of the seed-averaged per-verse difference"})
    methods: list[str] = field(default_factory=lambda: list(DEFAULT_METHODS),
                               metadata={"help": VARIANTS_HELP})
    bootstrap: int = field(default=1000, metadata={"help": "paired bootstrap resamples for the "
                                                   "intervals of each row's difference to the baseline"})


def training_seeds(cfg: CompareConfig) -> list[int]:
    """The seeds that train (pair sample, initialisation, batch order); the corpus split is
    always ``seed``'s."""
    seeds = list(cfg.seeds) if cfg.seeds else [cfg.seed]
    if len(set(seeds)) != len(seeds):
        raise InputError(f"repeated seeds: {seeds}", parameter="seeds")
    return seeds
