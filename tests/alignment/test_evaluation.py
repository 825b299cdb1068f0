import numpy as np

from alignment.evaluation.retrieval import paired_bootstrap


def test_paired_bootstrap_matches_a_brute_force_loop():
    rng = np.random.default_rng(3)
    a = rng.random(200) < 0.6
    b = rng.random(200) < 0.5
    d, lo, hi = paired_bootstrap(a, b, n=500, seed=7)
    # the same resamples, drawn and averaged one at a time
    draw = np.random.default_rng(7).integers(0, 200, size=(500, 200))
    means = sorted(float(np.mean([float(a[i]) - float(b[i]) for i in row])) for row in draw)
    assert d == np.mean(a.astype(float) - b.astype(float))
    assert lo == np.quantile(means, 0.025) and hi == np.quantile(means, 0.975)
    assert lo < d < hi


def test_identical_outcomes_have_a_zero_interval_and_a_clear_win_excludes_zero():
    a = np.array([True, False] * 50)
    assert paired_bootstrap(a, a) == (0.0, 0.0, 0.0)
    better = np.ones(100, dtype=bool)
    d, lo, hi = paired_bootstrap(better, a)
    assert d == 0.5 and lo > 0
