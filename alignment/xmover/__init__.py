"""XMoverScore: reference-free MT evaluation by optimal transport of (remapped) token vectors.

Public names are imported on first use (the scorer needs torch; option parsing does not)."""
from __future__ import annotations

from alignment.lazy import lazy_attributes


_PUBLIC = {"XMoverScorer": "scorer", "ScoreResult": "score_result", "VERSIONS": "versions",
           "Version": "versions", "get_version": "versions", "IdfWeights": "idf",
           "compute_idf": "idf", "ngram_vectors": "ngrams", "select_tokens": "ngrams",
           "emd": "transport", "emd_flow": "transport", "score_2020": "transport",
           "score_2022": "transport"}

__all__ = list(_PUBLIC)

__getattr__ = lazy_attributes(__name__, _PUBLIC, globals())
