"""``crossalign demo``, ``compare`` and ``simulate``: the experiments, each a config dataclass
(its fields are the options) and a function that runs it."""
from __future__ import annotations

import argparse
import importlib

from .options import add_dataclass_options, dataclass_from_args

# verb → (module under train.experiments, config class, run function, help)
EXPERIMENTS = {
    "simulate": ("simulate", "SimulationConfig", "run_simulation",
                 "the CBLI simulation (2-D Gaussian-mixture languages)"),
    "compare": ("compare", "CompareConfig", "run_compare",
                "every method on the Bible against center > clp, each trained one selected by "
                "semantic, structural, fixed-epoch and labelled criteria"),
    "unsupervised": ("unsupervised", "UnsupervisedConfig", "run_unsupervised",
                     "no parallel data: VecMap-, MUSE-style, GAN-Real-NVP ± bootstrapping and "
                     "pseudo-parallel mining on the unpaired Bible, against center and center > clp"),
    "joint-align": ("joint_align", "JointAlignConfig", "run_joint_align",
                    "fine-tune the encoder (Joint-Align) ± NORM ± TEXT on the Bible, against "
                    "center > clp and the best trained map, evaluated through the exports"),
    "demo": ("demo", "DemoConfig", "run_demo",
             "the embedded default: MiniLM, Bible es–en, every linear method"),
}


VERBS = {verb: help_ for verb, (_, _, _, help_) in EXPERIMENTS.items()}


def _module(verb: str):
    return importlib.import_module(f"train.experiments.{EXPERIMENTS[verb][0]}")


def run(args: argparse.Namespace) -> None:
    _, config, runner, _ = EXPERIMENTS[args.verb]
    module = _module(args.verb)
    getattr(module, runner)(dataclass_from_args(getattr(module, config), args))


def register(sub) -> None:
    for verb, (_, config, _, help_) in EXPERIMENTS.items():
        p = sub.add_parser(verb, help=help_)
        add_dataclass_options(p, getattr(_module(verb), config))
        p.set_defaults(func=run)
