import json

import numpy as np
import pytest
import torch

from alignment.errors import InputError
from alignment.export.remapped import export_remapped, load_remapped
from alignment.mappings import fit_composition
from alignment.mappings.moments import PairMoments
from alignment.export.provenance import DataProvenance
from alignment.signature import export_signature, parse_signature
from alignment.export.xmover_files import xmover_filename


def _fit(dim: int, spec: str, seed: int = 0):
    torch.manual_seed(seed)
    x, y = torch.randn(200, dim), torch.randn(200, dim)
    return fit_composition(PairMoments.of(x, y), spec)


def _export(tmp_path, tiny_bert, spec="clp", name="exp"):
    enc = load_remapped_encoder_identity(tiny_bert)
    mapping = _fit(32, spec)
    meta = export_remapped(tmp_path / name, mapping,
                           DataProvenance(enc, "abc123", 1500, 200, "bible", "es", "en"))
    return mapping, meta


def load_remapped_encoder_identity(tiny_bert):
    from alignment.encoding.encoder import load_encoder

    return load_encoder(str(tiny_bert), layer=-1).identity()


def test_export_load_round_trip_gives_identical_vectors(tmp_path, tiny_bert):
    from alignment.encoding.encoder import load_encoder

    mapping, meta = _export(tmp_path, tiny_bert, "center > clp")
    remapped = load_remapped(tmp_path / "exp")
    sentences = ["la casa es grande .", "el perro come pan ."]
    got = remapped.encode(sentences)
    enc = load_encoder(str(tiny_bert))
    raw = enc.encode_words(enc.tokenize_words(sentences), progress=False)
    for (words, vecs), r in zip(got, raw):
        assert vecs.shape == (len(words), 32)
        np.testing.assert_array_equal(vecs, mapping(torch.from_numpy(r)).numpy())
    tgt = remapped.encode(sentences, side="tgt")
    np.testing.assert_array_equal(tgt[0][1], mapping.map_target(torch.from_numpy(raw[0])).numpy())


def test_remap_json_carries_everything_and_a_signature(tmp_path, tiny_bert):
    _, meta = _export(tmp_path, tiny_bert, "clp")
    on_disk = json.loads((tmp_path / "exp" / "remap.json").read_text())
    assert on_disk == meta
    for key in ("encoder", "revision", "layer", "pooling", "mapping_type", "mapped_side",
                "src_lang", "tgt_lang", "data_fingerprint", "package_version", "signature"):
        assert on_disk[key] is not None, key
    sig = parse_signature(meta["signature"])
    assert sig["map"].startswith("clp#") and sig["lang"] == "es-en" and sig["L"] == "2"
    _, other = _export(tmp_path, tiny_bert, "umd", "exp2")
    assert other["signature"] != meta["signature"]


def test_xmoverscore_bam_reproduces_the_mapping(tmp_path, tiny_bert):
    mapping, meta = _export(tmp_path, tiny_bert, "clp")
    name = xmover_filename("bible", "es", "en", 1500, 2, "BAM")
    assert meta["xmoverscore_files"] == [name] and name == "bible.es-en.1k.2.BAM"
    w = np.load(tmp_path / "exp" / name)
    assert w.dtype == np.float32 and w.shape == (32, 32)
    x = torch.randn(5, 32)
    np.testing.assert_allclose(x.numpy() @ w, mapping(x).numpy(), atol=1e-5)


def test_xmoverscore_gbdd_reproduces_umd(tmp_path, tiny_bert):
    mapping, meta = _export(tmp_path, tiny_bert, "umd")
    (name,) = meta["xmoverscore_files"]
    assert name.endswith(".GBDD")
    v = np.load(tmp_path / "exp" / name)
    assert v.shape == (32,) and abs(np.linalg.norm(v) - 1) < 1e-6
    x = torch.randn(5, 32).numpy()
    np.testing.assert_allclose(x - np.outer(x @ v, v), mapping(torch.from_numpy(x)).numpy(), atol=1e-5)


def test_remap_json_says_which_side_each_path_maps(tmp_path, tiny_bert):
    _, umd = _export(tmp_path, tiny_bert, "umd", name="umd")
    assert umd["mapped_side"] == "both"
    assert "removed from both languages" in umd["applied"]
    assert "public code applies" in umd["applied"] and "source only" in umd["applied"]
    _, clp = _export(tmp_path, tiny_bert, "clp", name="clp")
    assert clp["mapped_side"] == "src" and "target side" not in clp["applied"]


def test_the_public_gbdd_switch_subtracts_one_scalar_as_the_public_code_does(tmp_path, tiny_bert):
    from alignment.export.xmover_files import read_xmover_file

    _, meta = _export(tmp_path, tiny_bert, "umd")
    path = tmp_path / "exp" / meta["xmoverscore_files"][0]
    v = np.load(path).astype(np.float64)
    x = np.random.default_rng(0).normal(size=(4, 32))
    public = read_xmover_file(path, 32, public_gbdd=True).map_array(x)
    np.testing.assert_allclose(public, x - v[0] ** 2 * x.sum(1, keepdims=True), atol=1e-6)
    paper = read_xmover_file(path, 32).map_array(x)
    np.testing.assert_allclose(paper, x - np.outer(x @ v, v), atol=1e-6)
    assert np.abs(public - paper).max() > 1e-3


def test_maps_with_a_bias_get_no_xmoverscore_file_and_say_why(tmp_path, tiny_bert):
    _, meta = _export(tmp_path, tiny_bert, "center > clp")
    assert meta["xmoverscore_files"] == [] and "not expressible" in meta["xmoverscore_note"]


def test_load_refuses_mismatched_dimension_and_revision(tmp_path, tiny_bert):
    _export(tmp_path, tiny_bert, "clp")
    meta_path = tmp_path / "exp" / "remap.json"
    meta = json.loads(meta_path.read_text())
    meta["dim"] = 384
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(InputError, match="dimension 384"):
        load_remapped(tmp_path / "exp")
    meta["dim"], meta["revision"] = 32, "0000"  # an export made with another revision
    meta["signature"] = export_signature(meta)
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(InputError, match="revision"):
        load_remapped(tmp_path / "exp")
    assert load_remapped(tmp_path / "exp", strict=False).mapping.dim == 32


def test_not_an_export(tmp_path):
    with pytest.raises(InputError, match="not a crossalign export"):
        load_remapped(tmp_path)
