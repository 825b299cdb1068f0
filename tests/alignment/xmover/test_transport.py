import numpy as np
import pytest

from alignment.xmover.ngrams import ngram_vectors, select_tokens
from alignment.xmover.transport import emd, prune_flows, score_2020, score_2022


def test_emd_is_exact_against_an_independent_lp():
    from scipy.optimize import linprog

    rng = np.random.default_rng(0)
    for _ in range(20):
        m, k = rng.integers(2, 7, size=2)
        a, b = rng.random(m), rng.random(k)
        a, b = a / a.sum(), b / b.sum()
        cost = rng.random((m, k))
        eq = np.zeros((m + k, m * k))
        for i in range(m):
            eq[i, i * k:(i + 1) * k] = 1
        for j in range(k):
            eq[m + j, j::k] = 1
        lp = linprog(cost.ravel(), A_eq=eq, b_eq=np.concatenate([a, b]), bounds=(0, None),
                     method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                              "dual_feasibility_tolerance": 1e-10})
        assert abs(emd(a, b, cost) - lp.fun) < 1e-9


def test_ngram_vectors_by_hand():
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    vecs, mass = ngram_vectors(v, np.array([1.0, 1.0, 2.0]), 2)
    np.testing.assert_allclose(vecs, [[0.5, 0.5], [2 / 3, 1.0]])
    np.testing.assert_allclose(mass, [2.0, 3.0])
    vecs, mass = ngram_vectors(v[:1], np.ones(1), 2)  # shorter than n: one n-gram of all tokens
    np.testing.assert_allclose(vecs, [[1.0, 0.0]])


def test_score_2020_by_hand():
    # one source n-gram e1; hypothesis n-grams e1 and e2 with equal mass:
    # half the mass moves at cost 0, half at squared distance 2 -> EMD 1 -> score 0
    e1, e2 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    assert score_2020(np.array([e1]), np.ones(1), np.array([e1, e2]), np.ones(2)) == pytest.approx(0.0, abs=1e-12)
    assert score_2020(np.array([2 * e1]), np.ones(1), np.array([e1]), np.ones(1)) == pytest.approx(1.0)


def test_score_2022_by_hand():
    # concatenated points [x=e1, y=e2]; masses a=[1,0]+1e-9, b=[0,1]+1e-9; all of x's mass goes
    # to y at Euclidean cost sqrt(2); the src->hyp block holds that one flow of 1.
    e1, e2 = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    assert score_2022(e1, np.ones(1), e2, np.ones(1)) == pytest.approx(1 / (1 + np.sqrt(2)), abs=1e-8)
    assert score_2022(e1, np.ones(1), e1, np.ones(1)) == pytest.approx(1.0)


def test_pruning_keeps_the_formula_exactly():
    flow = np.array([[1.0, 2, 3, 4, 5], [6, 7, 8, 9, 10], [0, 0, 0, 0, 0]])
    pruned = prune_flows(flow)  # 10 non-zero -> k = 3 -> flows below 3 go
    assert pruned[0, 0] == 0 and pruned[0, 1] == 0 and (pruned[pruned > 0] >= 3).all()
    assert (pruned > 0).sum() == 8
    assert (prune_flows(np.array([[0.5, 0.25]])) > 0).sum() == 2  # k = 1 prunes nothing


def test_token_selection_per_version():
    tokens = ["[CLS]", "the", "ho", "##use", ",", "is", "big", "!", "[SEP]"]
    special = [True] + [False] * 7 + [True]
    assert select_tokens(tokens, special, "2020").tolist() == [0, 1, 2, 5, 6, 8]
    assert select_tokens(tokens, special, "2022").tolist() == list(range(9))
    sp = ["<s>", "▁the", "▁ho", "use", "▁,", "</s>"]
    assert select_tokens(sp, [True, False, False, False, False, True], "2020", True).tolist() == [0, 1, 2, 5]
