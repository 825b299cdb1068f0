"""The reference-free metrics crossalign scores with, in one registry (after sacreBLEU's
``METRICS``): each is built from an export or an encoder and scores (source, hypothesis)
pairs, returning per-segment ``final`` scores and the signature that says how. A new metric is
its own module plus one ``register_metric`` line here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from alignment.catalogue import Registry


class Scores(Protocol):
    """What every metric's result offers."""

    final: np.ndarray
    signature: str


class Scorer(Protocol):
    """A built metric."""

    def score(self, sources: list[str], hypotheses: list[str]) -> Scores: ...


@dataclass(frozen=True)
class Metric:
    """One metric: its name, how to build its scorer (``build(encoder, **options)``), the
    formulations it offers (XMoverScore's published versions) and a one-line summary."""

    name: str
    build: Callable[..., Scorer]
    summary: str
    formulas: tuple[str, ...] = ()


METRICS: Registry[Metric] = Registry("metric")


def register_metric(metric: Metric) -> Metric:
    """Add ``metric``; a name may be registered once."""
    return METRICS.add(metric.name, metric)


def get_metric(name: str) -> Metric:
    """The registered metric called ``name``."""
    return METRICS.lookup(name)


def _xmoverscore(encoder: str, **options) -> Scorer:
    from alignment.xmover.scorer import XMoverScorer

    return XMoverScorer(encoder, **options)


def _bertscore(encoder: str, **options) -> Scorer:
    from alignment.metrics.bertscore import BertScoreXL

    return BertScoreXL(encoder, **options)


def _formulas() -> tuple[str, ...]:
    from alignment.xmover.versions import VERSIONS

    return tuple(VERSIONS)


register_metric(Metric("xmoverscore", _xmoverscore,
                       "XMoverScore (Zhao et al. 2020; the 2022 formulation by default): "
                       "transport between source and hypothesis n-grams, ⊕ an LM term",
                       _formulas()))
register_metric(Metric("bertscore-xl", _bertscore,
                       "cross-lingual BERTScore F1 of the hypothesis against the source "
                       "(no IDF, no rescaling)"))


def _consumer(name: str) -> Callable[..., Scorer]:
    def build(encoder: str, **options) -> Scorer:
        from alignment.metrics import ReferenceFree

        return ReferenceFree(name, encoder, **options)
    return build


for _name, _summary in (
        ("moverscore-v1", "MoverScore v1 (Zhao et al. 2019): [min; mean; max] of the last 5 "
         "layers, n-grams, 1 − EMD; here of the hypothesis against the source"),
        ("moverscore-v2", "MoverScore v2: the last layer, unigrams, 1 / (1 + transport cost); "
         "here of the hypothesis against the source"),
        ("baryscore", "BaryScore (Colombo et al. 2021): −W between the Wasserstein barycenters "
         "of the last 5 layers; here of the hypothesis against the source"),
        ("sentsim", "SentSim (Song et al. 2021), BERTScore form: exp of the set-normalised "
         "sentence cosine (USE) + exp of the set-normalised BERTScore F1")):
    register_metric(Metric(_name, _consumer(_name), _summary))
