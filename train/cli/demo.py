"""``crossalign demo``: the embedded default (packaged MiniLM, Bible es–en, every linear method)."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args


def run(args: argparse.Namespace) -> None:
    from ..experiments.demo import DemoConfig, run_demo

    run_demo(dataclass_from_args(DemoConfig, args))


def register(sub) -> None:
    from ..experiments.demo import DemoConfig

    p = sub.add_parser("demo", help="the embedded default: MiniLM, Bible es–en, every linear method")
    add_dataclass_options(p, DemoConfig)
    p.set_defaults(func=run)
