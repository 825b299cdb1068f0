"""The sentence-level term: unit-length mean-pooled vectors of one layer, the same whatever the
batching, the model card's prefix, its weight in the final score and in the signature."""
from types import SimpleNamespace

import numpy as np
import pytest

from alignment.encoding.encoder import load_encoder
from alignment.errors import InputError
from alignment.xmover.scorer import XMoverScorer
from alignment.xmover.sentence_vectors import SentenceSimilarity
from tests.conftest import EN, ES


def test_vectors_are_unit_mean_pooled_and_independent_of_batching(tiny_bert):
    import torch

    encoder = load_encoder(str(tiny_bert), layer=1)
    term = SentenceSimilarity(encoder, layer=1, batch_size=3)
    vecs = term.vectors(EN)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(SentenceSimilarity(encoder, layer=1, batch_size=64).vectors(EN[::-1]),
                               vecs[::-1], atol=1e-6)
    ids = encoder.tokenizer(EN[0], return_tensors="pt")
    with torch.no_grad():
        mean = encoder.model(**ids, output_hidden_states=True).hidden_states[1][0].mean(0).numpy()
    np.testing.assert_allclose(vecs[0], mean / np.linalg.norm(mean), atol=1e-6)
    assert term.score(EN[:2], EN[:2]) == pytest.approx([1.0, 1.0])
    assert term.describe() == "L1,mean" and SentenceSimilarity(encoder).layer == 2  # the last


def test_the_model_cards_prefix_and_a_bad_layer():
    e5 = SimpleNamespace(spec=SimpleNamespace(name="multilingual-e5-small-q4"),
                         model=SimpleNamespace(config=SimpleNamespace(num_hidden_layers=12)))
    assert SentenceSimilarity(e5).prefix == "query: "
    assert SentenceSimilarity(e5).describe() == "L12,mean,prefix=query:"
    assert SentenceSimilarity(e5, prefix="").prefix == ""
    with pytest.raises(InputError, match="sentence layer 13 out of range"):
        SentenceSimilarity(e5, layer=13)


def test_the_scorer_adds_the_term_with_its_weight_and_signs_it(tiny_bert):
    plain = XMoverScorer(str(tiny_bert), layer=2).score(ES[:4], EN[:4])
    scorer = XMoverScorer(str(tiny_bert), layer=2, weights={"sentence": 0.5}, sentence_layer=1)
    with_term = scorer.score(ES[:4], EN[:4])
    np.testing.assert_allclose(with_term.xmover, plain.xmover)
    np.testing.assert_allclose(with_term.final, plain.xmover + 0.5 * with_term.sentence)
    assert with_term.signature.endswith("|sent:L1,mean*0.5") and "sent:" not in plain.signature
    many = scorer.score_systems(ES[:4], [EN[:4], EN[1:5]])
    np.testing.assert_allclose(many[0].final, with_term.final, atol=1e-9)
