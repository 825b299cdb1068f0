"""``crossalign unsupervised``: alignment without parallel data on the Bible test bed
(``train.experiments.unsupervised_comparison``); the experiment's config dataclass fields are the
options."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args

VERBS = {"unsupervised": "no parallel data: VecMap-, MUSE-style, GAN-Real-NVP ± self-training and "
                          "pseudo-parallel mining on the unpaired Bible, against center and center > clp"}


def run(args: argparse.Namespace) -> None:
    from train.experiments.unsupervised_comparison import UnsupervisedConfig, run_unsupervised

    run_unsupervised(dataclass_from_args(UnsupervisedConfig, args))


def register(sub) -> None:
    from train.experiments.unsupervised_comparison import UnsupervisedConfig

    p = sub.add_parser("unsupervised", help=VERBS["unsupervised"])
    add_dataclass_options(p, UnsupervisedConfig)
    p.set_defaults(func=run)
