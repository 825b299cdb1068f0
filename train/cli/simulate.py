"""``crossalign simulate``: the CBLI simulation (``train.experiments.cbli_simulation``); the
experiment's config dataclass fields are the options."""
from __future__ import annotations

from .options import add_experiment_verb

VERBS = {"simulate": "the CBLI simulation (2-D Gaussian-mixture languages)"}


def register(sub) -> None:
    from train.experiments.cbli_simulation import SimulationConfig, run_simulation

    add_experiment_verb(sub, VERBS, SimulationConfig, run_simulation)
