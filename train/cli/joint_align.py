"""``crossalign joint-align``: fine-tuning the encoder on the Bible test bed
(``train.experiments.joint_align_comparison``); the experiment's config dataclass fields are the
options."""
from __future__ import annotations

from .options import add_experiment_verb

VERBS = {"joint-align": "fine-tune the encoder (Joint-Align) ± NORM ± TEXT on the Bible, against "
                         "center > clp and the best trained map, evaluated through the exports"}


def register(sub) -> None:
    from train.experiments.joint_align_comparison import JointAlignConfig, run_joint_align

    add_experiment_verb(sub, VERBS, JointAlignConfig, run_joint_align)
