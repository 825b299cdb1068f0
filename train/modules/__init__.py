"""Lightning modules that fit mappings with pairs, one per method family: closed form (moments +
exact solve); over ``MappingFit``, gradient-trained (``TrainedFit``: flow, regression); and
``JointAlign``, which fine-tunes the encoder itself. The families that learn without pairs
(adversarial, self-learning, mining) live with the rest of that method in ``train.unsupervised``.
Which family fits a method is the registry's ``fitter`` (a family name; each class says its own
``family``); a method is built and run by the fit plan (``train.fitting.plan``)."""
from __future__ import annotations

from .closed_form import ClosedFormFit
from .flow import FlowFit
from .joint_align_fit import JointAlign
from .mapping_fit import MappingFit
from .regression import RegressionFit
from .trained import TrainedFit


__all__ = ["ClosedFormFit", "FlowFit", "JointAlign", "MappingFit", "RegressionFit", "TrainedFit"]
