"""Alignment without parallel data, the Lightning side (the objectives, critic, constraints and
the self-training loop are in ``alignment.unsupervised``): the adversarial fitters (GAN-Real-NVP,
MUSE, and GAN-Real-NVP with a constraint for Algorithm 1), VecMap-style self-learning, iterated
mining, and self-training's refits with its callback (``SelfTraining``)."""
from __future__ import annotations

from .adversarial import AdversarialFit, GanRealNVPFit, MuseFit
from .constrained_gan import ConstrainedGanFit
from .mining import MiningFit
from .self_learning import SelfLearningFit

__all__ = ["AdversarialFit", "ConstrainedGanFit", "GanRealNVPFit", "MiningFit", "MuseFit",
           "SelfLearningFit"]
