"""The seeds' other BERT-based metrics over any encoder or crossalign export, reference-based
(reference vs output) or reference-free (source vs output through the remapped encoder):
MoverScore (v1, v2), BaryScore, BERTScore (``bertscore``) and SentSim, each with its
preprocessing as options and in its signature. XMoverScore lives in ``alignment.xmover``. Names are imported on first use (option parsing stays
torch-free)."""
from __future__ import annotations

from alignment.lazy import lazy_attributes

_PUBLIC = {"PRESETS": "preprocessing", "Preprocessing": "preprocessing",
           "Stopwords": "preprocessing", "MoverScore": "moverscore", "BaryScore": "baryscore",
           "MetricResult": "result", "NAMES": "consumers", "ReferenceFree": "consumers",
           "build_consumer": "consumers", "SentSim": "sentsim",
           "cross_lingual_bertscore": "bertscore"}

__all__ = list(_PUBLIC)

__getattr__ = lazy_attributes(__name__, _PUBLIC, globals())
