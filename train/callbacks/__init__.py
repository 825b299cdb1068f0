"""Callbacks: choose what a run keeps (``selection``), stop a collapsing fit (``guard``),
refine the choice by bootstrapping (``bootstrap``) and write the result (``saving``).
Recipes name them ``train.callbacks.NAME``."""
from .bootstrap import Bootstrap
from .guard import CollapseGuard
from .saving import SaveEncoder, SaveMapping
from .selection import (KeepBest, LastCheckpoint, Refines, SelectByCriterion, Selection,
                        final_selection, selected_by_criterion)

__all__ = ["Bootstrap", "CollapseGuard", "KeepBest", "LastCheckpoint", "Refines",
           "SaveEncoder", "SaveMapping", "SelectByCriterion", "Selection", "final_selection",
           "selected_by_criterion"]
