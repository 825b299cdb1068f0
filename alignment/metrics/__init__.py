"""The seeds' other BERT-based metrics over any encoder or crossalign export, reference-based
(reference vs output) or reference-free (source vs output through the remapped encoder):
MoverScore (v1, v2) and BaryScore, each with its preprocessing as options and in its signature.
XMoverScore lives in ``alignment.xmover``; cross-lingual BERTScore in
``alignment.evaluation.bertscore``."""
from .preprocessing import PRESETS, Preprocessing, Stopwords
from .moverscore import MoverScore
from .baryscore import BaryScore
from .result import MetricResult
from .consumers import NAMES, ReferenceFree, build_consumer

__all__ = ["PRESETS", "Preprocessing", "Stopwords", "MoverScore", "BaryScore", "MetricResult", "NAMES",
           "ReferenceFree", "build_consumer"]
