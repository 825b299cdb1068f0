"""``crossalign joint-align``: fine-tuning the encoder on the Bible test bed
(``train.experiments.joint_align_comparison``); the experiment's config dataclass fields are the
options."""
from __future__ import annotations

import argparse

from .options import add_dataclass_options, dataclass_from_args

VERBS = {"joint-align": "fine-tune the encoder (Joint-Align) ± NORM ± TEXT on the Bible, against "
                         "center > clp and the best trained map, evaluated through the exports"}


def run(args: argparse.Namespace) -> None:
    from train.experiments.joint_align_comparison import JointAlignConfig, run_joint_align

    run_joint_align(dataclass_from_args(JointAlignConfig, args))


def register(sub) -> None:
    from train.experiments.joint_align_comparison import JointAlignConfig

    p = sub.add_parser("joint-align", help=VERBS["joint-align"])
    add_dataclass_options(p, JointAlignConfig)
    p.set_defaults(func=run)
