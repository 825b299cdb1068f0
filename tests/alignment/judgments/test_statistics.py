"""The agreement statistics against scipy and against published worked examples."""
import numpy as np
import pytest
from scipy import stats

from alignment.evaluation.correlation import (kendall, pairwise_accuracy, paired_bootstrap_difference,
                                              pearson, williams_t, williams_test)


def test_pearson_and_kendall_equal_scipys():
    rng = np.random.default_rng(1)
    a = rng.normal(size=200)
    b = 0.4 * a + rng.normal(size=200)
    assert pearson(a, b) == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    assert kendall(a, b) == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)


def test_a_perfect_agreement_is_one_not_one_rounded_past_it():
    from alignment.judgments.agreement import _resampled_pearson

    a = np.array([1.3040000451301372, 0.9470809631292422])  # r rounds to 1.0000000000000002
    assert pearson(a, 3 * a + 1) == 1.0 and pearson(a, -3 * a) == -1.0
    resampled = _resampled_pearson(a, 3 * a + 1, np.array([[0, 1], [1, 0], [0, 0]]))
    assert resampled[0] == resampled[1] == 1.0 and np.isnan(resampled[2])


def test_williams_matches_published_examples():
    # bruceR::cor_diff(r1=.20, r2=.45, n=100, rcov=.80): t(97) = -4.56, p = 1e-05 (two-sided)
    t = williams_t(0.20, 0.45, 0.80, 100)
    assert t == pytest.approx(-4.56, abs=0.005)
    assert 2 * stats.t.sf(abs(t), 97) == pytest.approx(1.5e-05, rel=0.05)
    # psych::r.test(n=103, r12=.4, r13=.5, r23=.1): t = -0.89, "probability < 0.38" (two-sided)
    t = williams_t(0.4, 0.5, 0.1, 103)
    assert t == pytest.approx(-0.89, abs=0.005)
    assert 0.37 < 2 * stats.t.sf(abs(t), 100) < 0.38


def test_williams_test_is_one_sided_in_favour_of_the_first_metric():
    rng = np.random.default_rng(0)
    human = rng.normal(size=400)
    good = human + 0.5 * rng.normal(size=400)
    poor = human + 2.0 * rng.normal(size=400)
    t, p = williams_test(human, good, poor)
    assert t > 0 and p < 1e-3
    t2, p2 = williams_test(human, poor, good)
    assert t2 == pytest.approx(-t) and p2 > 0.99


def test_paired_bootstrap_difference_excludes_zero_only_for_a_real_gap():
    rng = np.random.default_rng(0)
    human = rng.normal(size=300)
    noise = rng.normal(size=300)
    good, poor = human + 0.5 * noise, human + 2.0 * rng.normal(size=300)
    d, lo, hi = paired_bootstrap_difference(human, good, poor, n=300)
    assert lo > 0 and lo <= d <= hi
    twin = human + 0.5 * rng.normal(size=300)  # as good, other noise: no real gap
    same = paired_bootstrap_difference(human, good, twin, n=300)
    assert same[1] < 0 < same[2]


def test_pairwise_accuracy_counts_orderings_people_agree_with():
    human = np.array([1.0, 2.0, 3.0, 4.0])
    assert pairwise_accuracy(human * 10, human) == 1.0
    assert pairwise_accuracy(-human, human) == 0.0
    # one swapped neighbour pair of six
    assert pairwise_accuracy(np.array([2.0, 1.0, 3.0, 4.0]), human) == pytest.approx(5 / 6)
    # human ties are left out; a metric tie counts as wrong
    assert pairwise_accuracy(np.array([1.0, 1.0, 2.0]), np.array([0.0, 1.0, 1.0])) == pytest.approx(1 / 2)
