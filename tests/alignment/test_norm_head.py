"""NORM heads: running statistics (the export's), batch statistics (the paper's), layer norm."""
import numpy as np
import torch

from alignment.mappings.centering import Norm
from alignment.mappings.moments import PairMoments
from alignment.encoding.norm_head import (batch_normalise, language_statistics, layer_normalise,
                                          running_norm)


def test_running_norm_equals_the_norm_mapping_fitted_on_the_same_vectors():
    rng = np.random.default_rng(0)
    x, y = rng.normal(3, 2, (500, 8)), rng.normal(-1, 0.5, (500, 8))
    head = running_norm(language_statistics(x), language_statistics(y))
    fitted = Norm.fit(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)))
    np.testing.assert_allclose(head.map_array(x, "src"), fitted.map_array(x, "src"), atol=1e-5)
    np.testing.assert_allclose(head.map_array(y, "tgt"), fitted.map_array(y, "tgt"), atol=1e-5)
    mapped = head.map_array(x, "src")
    np.testing.assert_allclose(mapped.mean(0), 0, atol=1e-6)
    np.testing.assert_allclose(mapped.std(0), 1, atol=1e-4)


def test_batch_norm_standardises_each_batch_of_sentences_and_keeps_nan_rows():
    rng = np.random.default_rng(1)
    vecs = rng.normal(5, 3, (30, 4)).astype(np.float32)
    vecs[7] = np.nan
    offsets = np.array([0, 4, 9, 15, 20, 26, 30])
    out = batch_normalise(vecs, offsets, batch=2)
    assert np.isnan(out[7]).all()
    for lo, hi in ((0, 9), (9, 20), (20, 30)):
        block = out[lo:hi][np.isfinite(out[lo:hi, 0])]
        np.testing.assert_allclose(block.mean(0), 0, atol=1e-5)
        np.testing.assert_allclose(block.std(0), 1, atol=1e-3)
    # the same sentence gets other vectors in other company: what a scorer cannot reproduce
    alone = batch_normalise(vecs[:4], np.array([0, 4]), batch=2)
    assert not np.allclose(alone, out[:4])


def test_batch_norm_in_a_given_order_batches_those_sentences():
    rng = np.random.default_rng(3)
    vecs = rng.normal(0, 1, (12, 3))
    offsets = np.array([0, 3, 6, 9, 12])  # four sentences of three words
    order = np.array([2, 0, 3, 1])
    out = batch_normalise(vecs, offsets, batch=2, order=order)
    first = np.r_[6:9, 0:3]  # sentences 2 and 0 form the first batch
    np.testing.assert_allclose(out[first].mean(0), 0, atol=1e-9)
    expected = batch_normalise(vecs[np.r_[6:9, 0:3, 9:12, 3:6]], offsets, batch=2)
    np.testing.assert_allclose(out[first], expected[:6])


def test_layer_norm_is_per_vector():
    v = np.random.default_rng(2).normal(2, 4, (5, 16))
    out = layer_normalise(v)
    np.testing.assert_allclose(out.mean(1), 0, atol=1e-9)
    np.testing.assert_allclose(out.std(1), 1, atol=1e-6)
    np.testing.assert_allclose(layer_normalise(v[:1]), out[:1])
