"""The layer sweep of the sentence-map probes pools every layer the way the product's
sentence-level term pools its one layer."""
import numpy as np

from alignment.encoding.encoder import load_encoder
from alignment.xmover.sentence_vectors import SentenceSimilarity
from benchmarks.sentence_map_probes import layer_vectors
from tests.conftest import ES


def test_each_layer_of_the_sweep_equals_the_sentence_term_at_that_layer(tiny_bert):
    encoder = load_encoder(str(tiny_bert))
    swept = layer_vectors(encoder, ES, [1, 2], prefix="", batch_size=3)
    for j, layer in enumerate([1, 2]):
        term = SentenceSimilarity(encoder, layer=layer, prefix="")
        np.testing.assert_allclose(swept[j], term.vectors(ES), atol=1e-6)
    assert not np.allclose(swept[0], swept[1])  # the layers differ, so the sweep compares something
