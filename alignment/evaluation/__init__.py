"""Measuring a mapping: retrieval, CBLI and lexicon induction (``retrieval``), the label-free
criteria, CSLS, correlations with human judgements, the challenge set, perturbations, W2W.
``alignment.evaluation.evaluate_mapping`` and the other names of ``retrieval`` are importable
from here (imported on first use)."""
from __future__ import annotations

from alignment.lazy import lazy_attributes

_PUBLIC = {name: "retrieval" for name in (
    "columns", "apply_mapping", "retrieval_hits", "paired_bootstrap", "sentence_retrieval",
    "contextual_bli", "type_vectors", "lexicon_induction", "evaluate_mapping",
    "char_ngram_reference")}

__all__ = list(_PUBLIC)

__getattr__ = lazy_attributes(__name__, _PUBLIC, globals())
