"""``crossalign demo``, ``compare`` and ``simulate``: the experiments, each a config dataclass
(its fields are the options) and a function that runs it."""
from __future__ import annotations

import argparse
from typing import Callable

from .options import add_dataclass_options, dataclass_from_args

HELP = {
    "simulate": "the CBLI simulation (2-D Gaussian-mixture languages)",
    "compare": "every method on the Bible against center > clp, each trained one selected by "
               "semantic, structural, fixed-epoch and labelled criteria",
    "unsupervised": "no parallel data: VecMap-, MUSE-style, GAN-Real-NVP ± bootstrapping and "
                    "pseudo-parallel mining on the unpaired Bible, against center and center > clp",
    "joint-align": "fine-tune the encoder (Joint-Align) ± NORM ± TEXT on the Bible, against "
                   "center > clp and the best trained map, evaluated through the exports",
    "demo": "the embedded default: MiniLM, Bible es–en, every linear method",
}

VERBS = dict(HELP)


def experiment(verb: str) -> tuple[type, Callable]:
    """(config class, run function) of an experiment verb, imported only when that verb is
    built (plain imports, so the import graph sees what the CLI launches)."""
    if verb == "simulate":
        from train.experiments.simulate import SimulationConfig, run_simulation
        return SimulationConfig, run_simulation
    if verb == "compare":
        from train.experiments.compare import run_compare
        from train.experiments.compare_config import CompareConfig
        return CompareConfig, run_compare
    if verb == "unsupervised":
        from train.experiments.unsupervised import UnsupervisedConfig, run_unsupervised
        return UnsupervisedConfig, run_unsupervised
    if verb == "joint-align":
        from train.experiments.joint_align import JointAlignConfig, run_joint_align
        return JointAlignConfig, run_joint_align
    from train.experiments.demo import DemoConfig, run_demo
    return DemoConfig, run_demo


def run(args: argparse.Namespace) -> None:
    config, runner = experiment(args.verb)
    runner(dataclass_from_args(config, args))


def register(sub) -> None:
    for verb, help_ in HELP.items():
        p = sub.add_parser(verb, help=help_)
        add_dataclass_options(p, experiment(verb)[0])
        p.set_defaults(func=run)
