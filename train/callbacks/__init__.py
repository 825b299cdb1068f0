"""Callbacks: choose what a run keeps (``selection``), stop a collapsing fit (``guard``),
and write the result (``saving``). Recipes name them ``train.callbacks.NAME``; self-training
after an unsupervised fit is ``train.unsupervised.self_training.SelfTraining``, with the rest of
that method."""
from .guard import CollapseGuard
from .saving import SaveEncoder, SaveMapping
from .selection import (KeepBest, KeptStep, LastCheckpoint, Refines, SelectByCriterion, Selection,
                        final_selection, selected_by_criterion)

__all__ = ["CollapseGuard", "KeepBest", "KeptStep", "LastCheckpoint", "Refines",
           "SaveEncoder", "SaveMapping", "SelectByCriterion", "Selection", "final_selection",
           "selected_by_criterion"]
