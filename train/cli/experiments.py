"""``crossalign compare`` and ``crossalign simulate``: the density-matching experiments."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args


def run_compare(args: argparse.Namespace) -> None:
    from ..experiments.compare import CompareConfig, run_compare

    run_compare(dataclass_from_args(CompareConfig, args))


def run_simulate(args: argparse.Namespace) -> None:
    from ..experiments.simulate import SimulationConfig, run_simulation

    run_simulation(dataclass_from_args(SimulationConfig, args))


def register(sub) -> None:
    from ..experiments.compare import CompareConfig
    from ..experiments.simulate import SimulationConfig

    sim = sub.add_parser("simulate", help="the CBLI simulation (2-D Gaussian-mixture languages)")
    add_dataclass_options(sim, SimulationConfig)
    sim.set_defaults(func=run_simulate)
    cmp_ = sub.add_parser("compare", help="Rotation / linear / FCNN / Real-NVP on the Bible, each "
                          "selected by semantic, structural, fixed-epoch and labelled criteria")
    add_dataclass_options(cmp_, CompareConfig)
    cmp_.set_defaults(func=run_compare)
