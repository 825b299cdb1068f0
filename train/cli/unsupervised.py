"""``crossalign unsupervised``: alignment without parallel data on the Bible test bed
(``train.experiments.unsupervised_comparison``); the experiment's config dataclass fields are the
options."""
from __future__ import annotations

from .options import add_experiment_verb

VERBS = {"unsupervised": "no parallel data: VecMap-, MUSE-style, GAN-Real-NVP ± self-training and "
                          "pseudo-parallel mining on the unpaired Bible, against center and center > clp"}


def register(sub) -> None:
    from train.experiments.unsupervised_comparison import UnsupervisedConfig, run_unsupervised

    add_experiment_verb(sub, VERBS, UnsupervisedConfig, run_unsupervised)
