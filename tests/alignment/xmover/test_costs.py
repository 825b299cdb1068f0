import numpy as np
import pytest

from alignment.xmover.costs import batched_costs
from alignment.xmover.transport import cost_2020, cost_2022, solve_2022, score_2022


@pytest.mark.parametrize("version, one", [("2020", cost_2020), ("2022", cost_2022)])
@pytest.mark.parametrize("batch_size", [1, 7, 128])
def test_batched_costs_equal_the_per_pair_matrices(version, one, batch_size):
    rng = np.random.default_rng(3)
    src = [rng.normal(size=(n, 12)) * rng.uniform(0.1, 10) for n in rng.integers(1, 30, 40)]
    hyp = [rng.normal(size=(n, 12)) for n in rng.integers(1, 30, 40)]
    hyp[5] = src[5].copy()  # identical points: distance exactly 0 on both paths
    got = batched_costs(version, src, hyp, "cpu", batch_size)
    for g, s, h in zip(got, src, hyp):
        want = one(s, h)
        assert g.shape == want.shape and g.dtype == np.float64
        np.testing.assert_allclose(g, want, atol=1e-12)
    if version == "2022":
        assert (np.diag(got[5]) == 0).all()  # equal tokens cost exactly nothing


def test_solving_a_precomputed_cost_is_the_score():
    rng = np.random.default_rng(0)
    s, h = rng.normal(size=(6, 5)), rng.normal(size=(4, 5))
    ms, mh = rng.uniform(0.5, 2, 6), rng.uniform(0.5, 2, 4)
    cost = batched_costs("2022", [s], [h])[0]
    assert solve_2022(cost, ms, mh) == pytest.approx(score_2022(s, ms, h, mh), abs=1e-12)
