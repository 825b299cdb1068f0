"""Each consumer metric's formula on a toy whose answer is computed by hand: the transport with
unequal totals (pyemd's EMD-hat), MoverScore v1's and v2's scores, BaryScore's W."""
from __future__ import annotations

import math

import numpy as np
import pytest

from alignment.metrics.baryscore import baryscore_values
from alignment.metrics.moverscore import balanced_flow, emd_hat, score_v1, score_v2


def _unit(*angles: float, d: int = 4) -> np.ndarray:
    """Unit vectors in the (e1, e2) plane at these angles (radians)."""
    v = np.zeros((len(angles), d), np.float32)
    v[:, 0], v[:, 1] = np.cos(angles), np.sin(angles)
    return v


def test_equal_totals_move_everything_at_least_cost():
    flow = balanced_flow(np.array([0.5, 0.5]), np.array([1.0]), np.array([[1.0], [3.0]]))
    np.testing.assert_allclose(flow, [[0.5], [0.5]])
    assert emd_hat(np.array([0.5, 0.5]), np.array([0.5, 0.5]),
                   np.array([[0.0, 2.0], [2.0, 1.0]]), 5.0) == pytest.approx(0.5)


def test_unequal_totals_move_the_smaller_and_charge_the_surplus():
    a, b, cost = np.array([0.6]), np.array([0.5, 0.5]), np.array([[1.0, 2.0]])
    np.testing.assert_allclose(balanced_flow(a, b, cost), [[0.5, 0.1]])
    assert emd_hat(a, b, cost, 3.0) == pytest.approx(0.5 * 1 + 0.1 * 2 + 0.4 * 3.0)
    assert not balanced_flow(np.zeros(2), b, np.ones((2, 2))).any()  # nothing to move


def test_moverscore_v2_is_one_over_one_plus_the_transport_cost():
    ref, hyp = _unit(0.0, math.pi / 2)[None], _unit(0.0, math.pi)[None]  # e1 e2 / e1 −e1
    keep = [True, True]
    # e1→e1 costs 0, e2→−e1 costs √2 (cheaper than e1→−e1 + e2→e1: 2 + √2): half the mass each
    got = score_v2(ref, [1.0, 1.0], keep, hyp, [1.0, 1.0], keep)
    assert got == pytest.approx(1 / (1 + 0.5 * math.sqrt(2)), abs=1e-6)
    # a dropped token carries no mass: only e1 → {e1, −e1} remains, at 0 and 2
    got = score_v2(ref, [1.0, 1.0], [True, False], hyp, [1.0, 3.0], keep)
    assert got == pytest.approx(1 / (1 + 0.75 * 2), abs=1e-6)


def test_moverscore_v1_is_one_minus_the_squared_transport_cost():
    layers = 5
    ref = np.repeat(_unit(0.0, math.pi / 2)[None], layers, 0)      # the same at every layer
    hyp = np.repeat(_unit(0.0, math.pi / 2 + math.pi / 3)[None], layers, 0)
    keep = [True, True]
    got = score_v1(ref, [1.0, 1.0], keep, hyp, [1.0, 1.0], keep, ngram=1)
    # [min; mean; max] of five equal layers is [v; v; v] (length √3); a unigram scales it by
    # 1/(1+1e-5), then it is divided by (its length + 1e-6): length r each; e2 → its
    # neighbour 60° away costs r²·1 (squared chord of [v; v; v]/√3), e1 → e1 nothing
    s = math.sqrt(3) / (1 + 1e-5)
    r = s / (s + 1e-6)
    mass = 1 / (2 + 1e-5)
    assert got == pytest.approx(1 - mass * r * r, abs=1e-7)


def test_moverscore_v1_bigrams_see_the_order_that_unigrams_do_not():
    ref = np.repeat(_unit(0.0, math.pi / 2, math.pi)[None], 5, 0)   # a b c
    hyp = np.repeat(_unit(math.pi / 2, 0.0, math.pi)[None], 5, 0)   # b a c
    keep, ones = [True] * 3, [1.0] * 3
    assert score_v1(ref, ones, keep, hyp, ones, keep, ngram=1) == pytest.approx(1.0, abs=1e-6)
    # bigrams: {ab, bc} against {ba, ac}: ab = ba costs nothing, bc against ac does not
    assert score_v1(ref, ones, keep, hyp, ones, keep, ngram=2) < 1 - 0.1


def test_baryscore_of_one_repeated_layer_is_the_wasserstein_distance_of_the_tokens():
    ref = np.repeat(_unit(0.0, math.pi / 2)[None], 3, 0).astype(np.float64)
    hyp = np.repeat(_unit(0.0, math.pi / 2 + math.pi / 3)[None], 3, 0).astype(np.float64)
    # the barycenter of one measure (three times) is its own points; W pairs e1 with e1 and
    # e2 with its neighbour 60° away: ½ · 0 + ½ · 1 (squared Euclidean)
    got = baryscore_values(ref, None, hyp, None, sinkhorn=(10,))
    assert got["W"] == pytest.approx(0.5, abs=1e-7)  # float32 inputs
    assert 0 < got["SD_10"]  # the entropic cost is there beside it
    assert baryscore_values(ref, None, ref, None)["W"] == pytest.approx(0.0, abs=1e-12)
