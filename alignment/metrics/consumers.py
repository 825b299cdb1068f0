"""The consumer metrics by name, and their reference-free form as the metric registry
(``alignment.evaluation.metrics.METRICS``) calls every metric: ``score(sources, hypotheses)``."""
from __future__ import annotations

from pathlib import Path

from alignment.catalogue import check_choice
from .baryscore import BaryScore
from .moverscore import MoverScore
from .result import MetricResult
from .sentsim import SentSim

NAMES = ("moverscore-v1", "moverscore-v2", "baryscore", "sentsim")


def build_consumer(name: str, encoder: str | Path, **options):
    """``moverscore-v1``, ``moverscore-v2``, ``baryscore`` or ``sentsim`` over ``encoder``
    (options: the metric's own, e.g. ``preprocessing``, ``ngram``, ``layers``, ``last_layers``;
    SentSim's ``sentence`` term and ``layer``)."""
    check_choice(name, NAMES, "metric", parameter="metric")
    if name == "baryscore":
        return BaryScore(encoder, **options)
    if name == "sentsim":
        return SentSim(encoder, **options)
    return MoverScore(encoder, name.rsplit("-", 1)[1], **options)


class ReferenceFree:
    """A consumer metric scoring outputs against their sources (through an export's map)."""

    def __init__(self, name: str, encoder: str | Path, **options) -> None:
        self.metric = build_consumer(name, encoder, **options)

    def score(self, sources: list[str], hypotheses: list[str]) -> MetricResult:
        return self.metric.score(hypotheses, sources=sources)
