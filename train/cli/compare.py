"""``crossalign compare``: every method on the Bible against ``center > clp``
(``train.experiments.comparison``); the experiment's config dataclass fields are the options."""
from __future__ import annotations

from .options import add_experiment_verb

VERBS = {"compare": "every method on the Bible against center > clp, each trained one selected by "
                     "semantic, structural, fixed-epoch and labelled criteria"}


def register(sub) -> None:
    from train.experiments.comparison import run_compare
    from train.experiments.comparison_config import CompareConfig

    add_experiment_verb(sub, VERBS, CompareConfig, run_compare)
