"""The consensus term: chrF as its definition gives it, a system never its own pseudo-reference,
standardisation within each pair, and the benchmark's segments matched to their source line."""
import numpy as np
import pytest

from alignment.errors import InputError
from alignment.terms.consensus import chrf, consensus_scores, other_outputs
from alignment.terms import Setting, standardise


def test_chrf_is_one_for_equal_strings_zero_for_disjoint_and_ignores_spaces():
    assert chrf("the cat sat", "the cat sat") == pytest.approx(1.0)
    assert chrf("the cat sat", "thecat  sat") == pytest.approx(1.0)
    assert chrf("abc", "xyz") == 0.0
    assert chrf("", "abc") == 0.0


def test_chrf_matches_a_hand_computation():
    # "ab" vs "abc", orders 1-2 only: n=1 P 2/2 R 2/3; n=2 P 1/1 R 1/2 → P 1, R 7/12
    p, r = 1.0, (2 / 3 + 1 / 2) / 2
    assert chrf("ab", "abc", order=2) == pytest.approx(5 * p * r / (4 * p + r))
    # recall counts twice: the longer hypothesis scores higher than the shorter one here
    assert chrf("abc", "ab", order=2) > chrf("ab", "abc", order=2)


def test_a_system_is_never_its_own_pseudo_reference():
    systems = {"A": ["x y", "p"], "B": ["x y", "q"], "C": ["z", "p"]}
    assert other_outputs(systems, "A") == [["x y", "z"], ["q", "p"]]
    assert other_outputs(systems, "A+B") == [["z"], ["p"]]  # one output two systems shared
    scores = consensus_scores(["x y", "p"], other_outputs(systems, "A"))
    assert scores[0] == pytest.approx(0.5) and scores[1] == pytest.approx(0.5)
    assert np.isnan(consensus_scores(["x"], [[]])[0])
    with pytest.raises(InputError, match="different lengths"):
        other_outputs({"A": ["a"], "B": ["a", "b"]}, "A")


def test_standardising_is_within_each_pair_and_missing_values_take_the_mean():
    values = np.array([1.0, 2.0, 3.0, 100.0, 300.0, np.nan])
    groups = np.array(["a", "a", "a", "b", "b", "b"])
    z = standardise(values, groups)
    assert z[:3] == pytest.approx([-1.2247449, 0.0, 1.2247449])
    assert z[3:] == pytest.approx([-1.0, 1.0, 0.0])  # NaN → its pair's mean
    summed = Setting.of(consensus=1.0).combine({"xmover": values, "consensus": -values}, groups)
    assert summed == pytest.approx(np.zeros(6))  # equal weights, opposite terms
    doubled = Setting.of(consensus=2.0).combine({"xmover": 0 * values, "consensus": values},
                                                groups)
    assert doubled == pytest.approx(2 * z)
