"""The consumer metrics by name, and their reference-free form as the metric registry
(``alignment.evaluation.metrics.METRICS``) calls every metric: ``score(sources, hypotheses)``."""
from __future__ import annotations

from pathlib import Path

from alignment.errors import InputError
from .baryscore import BaryScore
from .moverscore import MoverScore
from .result import MetricResult

NAMES = ("moverscore-v1", "moverscore-v2", "baryscore")


def build_consumer(name: str, encoder: str | Path, **options):
    """``moverscore-v1``, ``moverscore-v2`` or ``baryscore`` over ``encoder`` (options: the
    metric's own, e.g. ``preprocessing``, ``ngram``, ``layers``, ``last_layers``)."""
    if name == "baryscore":
        return BaryScore(encoder, **options)
    if name in ("moverscore-v1", "moverscore-v2"):
        return MoverScore(encoder, name.rsplit("-", 1)[1], **options)
    raise InputError(f"no metric {name!r}; known: {', '.join(NAMES)}", parameter="metric")


class ReferenceFree:
    """A consumer metric scoring outputs against their sources (through an export's map)."""

    def __init__(self, name: str, encoder: str | Path, **options) -> None:
        self.metric = build_consumer(name, encoder, **options)

    def score(self, sources: list[str], hypotheses: list[str]) -> MetricResult:
        return self.metric.score(hypotheses, sources=sources)
