"""Lightning modules that fit mappings, one per method family: closed form (moments + exact
solve); over ``MappingFit``, gradient-trained (``TrainedFit``: flow, regression), adversarial
(``AdversarialFit``: GAN-Real-NVP, MUSE), self-learning (VecMap) and mining as siblings.
Which family fits a method is said in one place, the method registry's ``fitter``; a method
is built and run by the fit plan (``train.fitting.plan``)."""
from __future__ import annotations

from .adversarial import AdversarialFit, GanRealNVPFit, MuseFit
from .base import MappingFit
from .closed_form import ClosedFormFit
from .flow import FlowFit
from .joint_align import JointAlign
from .mining import MiningFit
from .regression import RegressionFit
from .self_learning import SelfLearningFit
from .trained import TrainedFit


__all__ = ["AdversarialFit", "ClosedFormFit", "FlowFit", "GanRealNVPFit", "JointAlign", "MappingFit",
           "MiningFit", "MuseFit", "RegressionFit", "SelfLearningFit", "TrainedFit"]
