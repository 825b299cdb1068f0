"""``crossalign compare``: every method on the Bible against ``center > clp``
(``train.experiments.comparison``); the experiment's config dataclass fields are the options."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args

VERBS = {"compare": "every method on the Bible against center > clp, each trained one selected by "
                     "semantic, structural, fixed-epoch and labelled criteria"}


def run(args: argparse.Namespace) -> None:
    from train.experiments.comparison import run_compare
    from train.experiments.comparison_config import CompareConfig

    run_compare(dataclass_from_args(CompareConfig, args))


def register(sub) -> None:
    from train.experiments.comparison_config import CompareConfig

    p = sub.add_parser("compare", help=VERBS["compare"])
    add_dataclass_options(p, CompareConfig)
    p.set_defaults(func=run)
