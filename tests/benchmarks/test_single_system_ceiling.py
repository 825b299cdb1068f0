"""The WMT17 ceiling's arithmetic: the in-sample fit is an upper bound on any weighting, and the
cross-validated fit removes the optimism that fitting on the scored segments brings."""
import numpy as np

from benchmarks.single_system_ceiling import cross_validated_scores, least_squares_scores, surface


def _r(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


def test_the_in_sample_fit_is_at_least_as_good_as_any_weighting_of_its_terms():
    rng = np.random.default_rng(0)
    terms = rng.normal(size=(600, 3))
    human = 2 * terms[:, 0] - terms[:, 1] + rng.normal(size=600)
    ceiling = _r(least_squares_scores(terms, human), human)
    for w in rng.normal(size=(50, 3)):
        assert _r(terms @ w, human) <= ceiling + 1e-12
    assert abs(ceiling - np.sqrt(5 / 6)) < 0.03  # the population multiple correlation


def test_cross_validation_removes_the_optimism_of_fitting_on_noise():
    rng = np.random.default_rng(1)
    noise_terms = rng.normal(size=(300, 20))
    human = rng.normal(size=300)
    in_sample = _r(least_squares_scores(noise_terms, human), human)
    held_out = _r(cross_validated_scores(noise_terms, human), human)
    assert in_sample > 0.2  # 20 noise terms fitted on 300 segments look informative
    assert held_out < 0.1   # scored by weights that never saw them, they are not


def test_surface_features_flag_copied_words_and_unusual_lengths():
    src = ["Der Hund frisst das Brot heute", "Die Katze schläft", "Ein Vogel singt laut"]
    mt = ["Der Hund frisst das Brot heute", "The cat sleeps", "A bird sings loudly and very long indeed"]
    f = surface(src, mt)
    assert f["copy rate"][0] == -1.0 and f["copy rate"][1] == 0.0
    assert f["length ratio"][2] == f["length ratio"].min() < 0
