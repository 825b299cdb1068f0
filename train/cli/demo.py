"""``crossalign demo``: the embedded default's table (``train.experiments.demo_table``); the
experiment's config dataclass fields are the options."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args

VERBS = {"demo": "the embedded default: MiniLM, Bible es–en, every linear method"}


def run(args: argparse.Namespace) -> None:
    from train.experiments.demo_table import DemoConfig, run_demo

    run_demo(dataclass_from_args(DemoConfig, args))


def register(sub) -> None:
    from train.experiments.demo_table import DemoConfig

    p = sub.add_parser("demo", help=VERBS["demo"])
    add_dataclass_options(p, DemoConfig)
    p.set_defaults(func=run)
