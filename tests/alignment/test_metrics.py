"""The metric registry builds each metric's real scorer, and the evaluate tasks' library
functions compute what the CLI prints."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.metrics.bertscore import cross_lingual_bertscore
from alignment.evaluation.metrics import METRICS, get_metric
from alignment.evaluation.w2w import w2w_metrics
from alignment.terms import Runtime
from alignment.xmover import XMoverScorer
from tests.conftest import EN, ES


def test_every_metric_is_registered_once_and_an_unknown_one_is_refused_by_name():
    assert {"xmoverscore", "bertscore-xl"} <= set(METRICS)
    assert set(METRICS["xmoverscore"].formulas) == {"2020", "2022"}
    with pytest.raises(InputError, match="unknown metric 'bleu'.*bertscore-xl"):
        get_metric("bleu")


def test_the_registry_builds_the_real_scorers(tiny_bert):
    built = get_metric("xmoverscore").build(str(tiny_bert), formula="2022", layer=2,
                                            runtime=Runtime.of(jobs=1))
    direct = XMoverScorer(str(tiny_bert), "2022", 2, runtime=Runtime.of(jobs=1))
    ours = built.score(ES[:3], EN[:3])
    np.testing.assert_allclose(ours.final, direct.score(ES[:3], EN[:3]).final)
    assert ours.signature.startswith("xmoverscore|")
    bert = get_metric("bertscore-xl").build(str(tiny_bert), layer=2).score(ES[:3], EN[:3])
    np.testing.assert_allclose(bert.final, cross_lingual_bertscore(str(tiny_bert), ES[:3],
                                                                   EN[:3], layer=2).f1)


@dataclass
class _Scores:
    final: np.ndarray
    signature: str
    xmover: np.ndarray | None = None
    lm: np.ndarray | None = None


class _TableScorer:
    """Scores looked up per hypothesis (what a real scorer would have returned)."""

    def __init__(self, table: dict[str, tuple[float, float]], with_lm: bool) -> None:
        self.table, self.with_lm = table, with_lm

    def score(self, sources, hypotheses):
        xm = np.array([self.table[h][0] for h in hypotheses])
        lm = np.array([self.table[h][1] for h in hypotheses]) if self.with_lm else None
        final = xm + 0.1 * lm if self.with_lm else xm
        return _Scores(final, "sig", xm, lm)


def test_w2w_counts_where_the_literal_version_wins_with_and_without_the_lm_term():
    table = {"r1": (0.5, -1.0), "l1": (0.6, -9.0),   # wins on transport, loses with the LM
             "r2": (0.5, -1.0), "l2": (0.4, -1.0),   # loses
             "r3": (0.5, -1.0), "l3": (0.7, -1.0)}   # wins either way
    plain = w2w_metrics(_TableScorer(table, False), ["s"] * 3, ["r1", "r2", "r3"],
                        ["l1", "l2", "l3"], "literal")
    assert plain.metrics["w2w"] == pytest.approx(2 / 3) and "w2w_without_lm" not in plain.metrics
    with_lm = w2w_metrics(_TableScorer(table, True), ["s"] * 3, ["r1", "r2", "r3"],
                          ["l1", "l2", "l3"], "literal")
    assert with_lm.metrics["w2w"] == pytest.approx(1 / 3)
    assert with_lm.metrics["w2w_without_lm"] == pytest.approx(2 / 3)
    assert with_lm.metrics["mean_lm_literal"] == pytest.approx(-11 / 3)
    assert with_lm.signature == "sig"
