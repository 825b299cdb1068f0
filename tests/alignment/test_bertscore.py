"""Cross-lingual BERTScore with an export: equal to the ``bert_score`` package where no map is
applied, and the export's map applied to the source side where one is."""
from __future__ import annotations

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.metrics.bertscore import cross_lingual_bertscore, greedy_match
from tests.conftest import EN, ES


def test_without_a_map_it_is_the_bert_score_package(tiny_bert, tmp_path):
    import json
    import shutil

    bert_score = pytest.importorskip("bert_score")
    model = tmp_path / "tiny"  # bert_score needs the tokenizer's length limit written down
    shutil.copytree(tiny_bert, model)
    config = json.loads((model / "tokenizer_config.json").read_text())
    (model / "tokenizer_config.json").write_text(json.dumps({**config, "model_max_length": 64}))
    ours = cross_lingual_bertscore(str(model), ES, EN, layer=2)
    p, r, f = bert_score.score(EN, ES, model_type=str(model), num_layers=2,
                               use_fast_tokenizer=True, device="cpu", batch_size=4)
    np.testing.assert_allclose(ours.precision, p.numpy(), atol=1e-5)
    np.testing.assert_allclose(ours.recall, r.numpy(), atol=1e-5)
    np.testing.assert_allclose(ours.f1, f.numpy(), atol=1e-5)
    assert ours.signature.startswith("bertscore-xl|") and "|map:none|" in ours.signature


def test_an_export_maps_the_source_side(tmp_path, tiny_bert):
    from alignment.export.remapped import load_remapped
    from tests.alignment.test_export import _export

    _export(tmp_path, tiny_bert, "clp")
    export = tmp_path / "exp"
    got = cross_lingual_bertscore(export, ES[:4], EN[:4])
    remapped = load_remapped(export)
    plain = cross_lingual_bertscore(str(tiny_bert), ES[:4], EN[:4], layer=remapped.encoder.layer)
    assert not np.allclose(got.f1, plain.f1)  # the map changed the source vectors
    _, src_special, src = remapped.encoder.encode_tokens(ES[:1])[0]
    _, hyp_special, hyp = remapped.encoder.encode_tokens(EN[:1])[0]
    mapped = remapped.mapping.map_array(src.astype(np.float64), "src")
    want = greedy_match(hyp.astype(np.float64), mapped, ~np.array(hyp_special),
                        ~np.array(src_special))
    assert got.f1[0] == pytest.approx(want[2], abs=1e-6)  # batch padding: float noise
    assert f"|map:{remapped.mapping.describe()}#" in got.signature


def test_a_plain_encoder_needs_its_layer_and_strings_are_refused(tiny_bert):
    with pytest.raises(InputError, match="parameter 'layer'"):
        cross_lingual_bertscore(str(tiny_bert), ES, EN)
    with pytest.raises(InputError, match="not one string"):
        cross_lingual_bertscore(str(tiny_bert), "la casa", "the house", layer=2)
