"""``crossalign demo``: the embedded default's table (``train.experiments.demo_table``); the
experiment's config dataclass fields are the options."""
from __future__ import annotations

from .options import add_experiment_verb

VERBS = {"demo": "the embedded default: MiniLM, Bible es–en, every linear method"}


def register(sub) -> None:
    from train.experiments.demo_table import DemoConfig, run_demo

    add_experiment_verb(sub, VERBS, DemoConfig, run_demo)
