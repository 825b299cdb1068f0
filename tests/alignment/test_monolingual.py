import numpy as np

from alignment.data.monolingual import MonolingualPool
from alignment.data.vectors import WordVectors


def _pool():
    tokens = [["de", "la", "casa"], ["de", "la", "de"], ["Casa", "de", "x"]]
    rng = np.random.default_rng(0)
    per = [rng.standard_normal((len(t), 4)).astype(np.float32) for t in tokens]
    per[2][2] = np.nan  # a word lost to truncation
    return MonolingualPool.from_side(WordVectors.from_list(per), tokens, "es"), per, tokens


def test_pool_keeps_finite_rows_with_lowercased_types():
    pool, per, _ = _pool()
    assert len(pool) == 8
    assert pool.words == ["de", "la", "casa"]
    assert list(pool.counts()) == [4, 2, 2]
    np.testing.assert_array_equal(pool.vectors[0], per[0][0])


def test_indices_select_sentences():
    pool, _, tokens = _pool()
    sub = MonolingualPool.from_side(WordVectors.from_list([np.ones((3, 4), np.float32)] * 3),
                                    tokens, "es", indices=[1])
    assert len(sub) == 3 and sub.words == ["de", "la"]


def test_capped_sample_bounds_each_type_and_is_seeded():
    pool, _, _ = _pool()
    rows = pool.capped_sample(100, per_type=1, seed=0)
    assert len(rows) == 3
    assert sorted(pool.type_ids[rows].tolist()) == [0, 1, 2]
    np.testing.assert_array_equal(rows, pool.capped_sample(100, per_type=1, seed=0))
    assert len(pool.capped_sample(2, per_type=5)) == 2


def test_centroids_are_type_means_most_frequent_first():
    pool, per, _ = _pool()
    words, cents = pool.centroids(top=2)
    assert words == ["de", "la"]
    de = np.stack([per[0][0], per[1][0], per[1][2], per[2][1]]).mean(0)
    np.testing.assert_allclose(cents[0], de, rtol=1e-5)
    assert pool.centroids(min_count=3)[0] == ["de"]
