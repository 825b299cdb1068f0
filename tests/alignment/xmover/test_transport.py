import numpy as np
import pytest

from alignment.xmover.ngrams import ngram_vectors, select_tokens
from alignment.xmover.transport import (FLOW_TOLERANCE, concatenated_flow, cost_2022,
                                        cost_2022_concatenated, emd,
                                        has_rounding_effects, prune_flows,
                                        score_2020, score_2022, solve_2022,
                                        solve_2022_concatenated)


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
    # all of x's mass goes to y at Euclidean cost sqrt(2): one flow of 1
    e1, e2 = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    assert score_2022(e1, np.ones(1), e2, np.ones(1)) == pytest.approx(1 / (1 + np.sqrt(2)), abs=1e-8)
    assert score_2022(e1, np.ones(1), e1, np.ones(1)) == pytest.approx(1.0)


def test_pruning_keeps_the_formula_exactly():
    flow = np.array([[1.0, 2, 3, 4, 5], [6, 7, 8, 9, 10], [0, 0, 0, 0, 0]])
    pruned = prune_flows(flow)  # 10 non-zero -> k = 3 -> flows below 3 go
    assert pruned[0, 0] == 0 and pruned[0, 1] == 0 and (pruned[pruned > 0] >= 3).all()
    assert (pruned > 0).sum() == 8
    assert (prune_flows(np.array([[0.5, 0.25]])) > 0).sum() == 2  # k = 1 prunes nothing


def test_pruning_with_a_tolerance_keeps_flows_tied_up_to_rounding():
    tied = np.array([[0.1 - 1e-16, 0.1, 0.1 + 1e-16, 0.2, 0.2, 0.2, 0.2]])  # 7 flows -> k = 2
    with_residue = np.concatenate([tied, [[1e-17]]], axis=1)               # 8 flows -> k = 2
    # the public rule (every flow > 0 counted, strict cut at the k-th) splits the three flows
    # equal up to rounding, and a rounding residue elsewhere changes which ones it keeps
    assert (prune_flows(tied) > 0).sum() == 6 and (prune_flows(with_residue) > 0).sum() == 7
    # with the tolerance: all seven kept in both, the residue neither counted nor kept
    for flow in (tied, with_residue):
        kept = prune_flows(flow, tolerance=FLOW_TOLERANCE)
        assert (kept > 0).sum() == 7 and kept[0, :7].min() > 0


def _problems(n: int, seed: int, uniform_every: int = 2):
    """Transport problems shaped like XMoverScore's: m, k n-grams of related sentences, uniform
    masses (no IDF, the 2022 default: many exactly tied flows) or IDF-like ones."""
    rng = np.random.default_rng(seed)
    for t in range(n):
        m, k = rng.integers(4, 30, 2)
        base = rng.normal(size=(max(m, k), 16))
        s = base[:m] + 0.5 * rng.normal(size=(m, 16))
        h = base[:k] + 0.5 * rng.normal(size=(k, 16))
        if t % uniform_every == 0:
            yield s, np.ones(m), h, np.ones(k)
        else:
            yield s, rng.uniform(0.5, 3, m), h, rng.uniform(0.5, 3, k)


def test_score_2022_does_not_depend_on_the_solver_but_the_public_formulation_does():
    ours, public = [], []
    for s, ms, h, mh in _problems(60, seed=0):
        cost, full = cost_2022(s, h), cost_2022_concatenated(s, h)
        ours.append(abs(solve_2022(cost, ms, mh) - solve_2022(cost, ms, mh, solver="lp")))
        public.append(abs(solve_2022_concatenated(full, ms, mh)
                          - solve_2022_concatenated(full, ms, mh, solver="lp")))
    assert max(ours) < 1e-9
    # the public formulation's score moves with the solver's rounding on many problems
    assert sum(d > 1e-6 for d in public) >= 10 and max(public) > 1e-3


def test_score_2022_is_stable_under_tiny_cost_noise():
    rng = np.random.default_rng(5)
    for s, ms, h, mh in _problems(60, seed=1):
        cost = cost_2022(s, h)
        noisy = cost + 1e-12 * rng.standard_normal(cost.shape)
        assert abs(solve_2022(cost, ms, mh) - solve_2022(noisy, ms, mh)) < 1e-9


def test_score_2022_equals_the_public_formulation_where_its_flow_has_no_rounding_effects():
    checked = 0
    for s, ms, h, mh in _problems(80, seed=2):
        full = cost_2022_concatenated(s, h)
        m, k = len(ms), len(mh)
        raw = concatenated_flow(full, ms, mh, keep_share=0.0)  # k = 1: nothing pruned
        if has_rounding_effects(raw):
            continue
        checked += 1
        assert abs(solve_2022(cost_2022(s, h), ms, mh) - solve_2022_concatenated(full, ms, mh)) < 1e-9
    assert checked >= 20


def test_token_selection_per_version():
    tokens = ["[CLS]", "the", "ho", "##use", ",", "is", "big", "!", "[SEP]"]
    special = [True] + [False] * 7 + [True]
    assert select_tokens(tokens, special, "2020").tolist() == [0, 1, 2, 5, 6, 8]
    assert select_tokens(tokens, special, "2022").tolist() == list(range(9))
    sp = ["<s>", "▁the", "▁ho", "use", "▁,", "</s>"]
    assert select_tokens(sp, [True, False, False, False, False, True], "2020", True).tolist() == [0, 1, 2, 5]


def test_2020_drops_ascii_punctuation_only_as_the_public_code_does():
    tokens = ["[CLS]", "“", "dijo", "”", "¿", "qué", "?", "—", "«", "sí", "»", "’", "...", "'", "[SEP]"]
    special = [True] + [False] * 13 + [True]
    kept = [tokens[i] for i in select_tokens(tokens, special, "2020")]
    # single ASCII punctuation (?, ') goes; Unicode punctuation and "..." (three characters) stay
    assert kept == ["[CLS]", "“", "dijo", "”", "¿", "qué", "—", "«", "sí", "»", "’", "...", "[SEP]"]
