"""``crossalign simulate``: the CBLI simulation (``train.experiments.cbli_simulation``); the
experiment's config dataclass fields are the options."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args

VERBS = {"simulate": "the CBLI simulation (2-D Gaussian-mixture languages)"}


def run(args: argparse.Namespace) -> None:
    from train.experiments.cbli_simulation import SimulationConfig, run_simulation

    run_simulation(dataclass_from_args(SimulationConfig, args))


def register(sub) -> None:
    from train.experiments.cbli_simulation import SimulationConfig

    p = sub.add_parser("simulate", help=VERBS["simulate"])
    add_dataclass_options(p, SimulationConfig)
    p.set_defaults(func=run)
