"""The encoding benchmark's ONNX Runtime row runs the batches ``encode_words`` runs, through a
graph of the same weights, and says how far its output is from torch's."""
import pytest

from alignment.encoding.encoder import Encoder, EncoderSpec
from benchmarks.encode_throughput import measure_onnx, padded_batches
from tests.conftest import ES


def test_padded_batches_keep_every_token_and_mask_the_padding(tiny_bert):
    enc = Encoder(EncoderSpec(str(tiny_bert), layer=-1), device="cpu", dtype="fp32")
    words = enc.tokenize_words(ES)
    batches = padded_batches(enc, words, 3)
    assert sum(len(b["input_ids"]) for b in batches) == len(ES)
    ids = enc.tokenizer(words, is_split_into_words=True)["input_ids"]
    assert sorted(int(b["attention_mask"][k].sum()) for b in batches for k in range(len(b["input_ids"]))) \
        == sorted(len(x) for x in ids)


def test_onnx_runtime_row_matches_torch_on_real_tokens(tiny_bert, tmp_path):
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    enc = Encoder(EncoderSpec(str(tiny_bert), layer=-1), device="cpu", dtype="fp32")
    row = measure_onnx(enc, enc.tokenize_words(ES), 4, 1, tmp_path)
    assert row["max_abs_diff"] < 1e-4
    assert row["torch_seconds"] > 0 and row["onnxruntime_seconds"] > 0
