"""Joint-Align's data and loss: real tokenizer and encoder (the tiny BERT), real pooling."""
import numpy as np
import torch

from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.encoding.joint_align import (collate_pairs, joint_align_loss, pooled_words, side_states,
                                            tokenize_pair)
from tests.conftest import EN, ES


def _examples(encoder, n=4, max_length=64):
    out = []
    for s, t in zip(ES[:n], EN[:n]):
        sw, tw = s.split(), t.split()
        links = [(k, k) for k in range(min(len(sw), len(tw)))]
        out.append(tokenize_pair(encoder.tokenizer, sw, tw, links, max_length))
    return out


def test_pooled_words_equal_the_encoders_word_vectors(tiny_bert):
    """The differentiable pooling of a padded pair batch gives exactly the vectors the
    (inference) encoder gives each sentence alone, for every pooling."""
    for pooling in ("first", "mean", "last"):
        enc = Encoder(EncoderSpec(str(tiny_bert), layer=-1, pooling=pooling), device="cpu")
        batch = collate_pairs(_examples(enc), enc.tokenizer.pad_token_id)
        with torch.no_grad():
            states = side_states(enc.model, batch.tgt, enc.layer)
            pooled = pooled_words(states, batch.tgt, pooling).numpy()
        expected = np.concatenate(enc.encode_words([t.split() for t in EN[:4]], progress=False,
                                                   bucket=False))
        np.testing.assert_allclose(pooled, expected, atol=1e-5)


def test_truncation_drops_links_of_lost_words(tiny_bert):
    enc = Encoder(EncoderSpec(str(tiny_bert)), device="cpu")
    full = _examples(enc, 1)[0]
    cut = _examples(enc, 1, max_length=4)[0]  # [CLS] + 2 subwords + [SEP]
    assert len(cut.links) < len(full.links)
    kept_src = set(cut.src_words) - {-1}
    assert all(i in kept_src for i, _ in cut.links)


def test_loss_is_zero_at_agreement_and_splits_like_data_parallel():
    """Dividing by the global batch's sentences per process makes the mean of two halves'
    losses (what DDP's gradient averaging sees) equal the whole batch's loss."""
    torch.manual_seed(0)
    src, tgt = torch.randn(10, 6), torch.randn(12, 6)
    links = torch.tensor([[k, k + 1] for k in range(8)])
    states, original = torch.randn(2, 5, 6), torch.randn(2, 5, 6)
    real = torch.ones(2, 5, dtype=torch.bool)
    zero = joint_align_loss(src, src, torch.tensor([[k, k] for k in range(10)]), states, states,
                            real, 1.0, per=2)
    assert float(zero.total) == 0.0
    whole = joint_align_loss(src, tgt, links, states, original, real, 0.5, per=2)
    halves = [joint_align_loss(src, tgt, links[part], states[k:k + 1], original[k:k + 1],
                               real[k:k + 1], 0.5, per=1)
              for k, part in enumerate((slice(0, 4), slice(4, 8)))]
    assert torch.allclose((halves[0].total + halves[1].total) / 2, whole.total)
    assert whole.n_links == 8
