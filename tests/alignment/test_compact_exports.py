"""The compact export format (``crossalign-remap-2``, ``crossalign-mapping-2``): each tensor
stored once, identities and zeros declared, bit-for-bit round trips; exports written before it
still load and score the same; ``export --upgrade`` rewrites one; shipped exports stay small."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from alignment.errors import InputError
from alignment.export.provenance import DataProvenance
from alignment.export.remapped import export_remapped, load_remapped
from alignment.mappings import fit_composition, load_mapping
from alignment.mappings.moments import PairMoments
from alignment.mappings.staged import StagedMapping

EXPORTS = Path(__file__).parents[2] / "exports"


def _staged_flow(dim: int = 16) -> StagedMapping:
    from alignment.mappings.flow import RealNVPMapping

    torch.manual_seed(0)
    pre = fit_composition(PairMoments.of(torch.randn(300, dim) + 2, torch.randn(300, dim)),
                          "center > clp")
    last = RealNVPMapping(dim, transforms=2, hidden=8, layers=1)
    with torch.no_grad():  # a trained-looking flow: no tensor left at its initial zeros
        for p in last.parameters():
            p.add_(0.01 * torch.randn_like(p))
    return StagedMapping.of(pre, last)


def _stored_names(folder: Path) -> set[str]:
    with safe_open(str(folder / "mapping.safetensors"), "pt") as f:
        return set(f.keys())


def _write_format_1(mapping, folder: Path) -> None:
    """A mapping as crossalign wrote it before the compact format: every tensor in the file."""
    folder.mkdir(parents=True)
    save_file(mapping.tensors(), str(folder / "mapping.safetensors"))
    (folder / "mapping.json").write_text(json.dumps(
        {"type": mapping.kind, "config": mapping.config(), "fingerprint": mapping.fingerprint()}))


def test_a_staged_flow_round_trips_bit_for_bit_with_each_tensor_stored_once(tmp_path):
    mapping = _staged_flow()
    mapping.save(tmp_path / "m")
    stored = _stored_names(tmp_path / "m")
    # center's and clp's identities, clp's zero bias and the composed copy are declared
    assert "pre.stages.0.src_weight" not in stored and "pre.stages.1.src_bias" not in stored
    assert ("pre.src_weight" in stored) != ("pre.stages.1.src_weight" in stored)
    assert len(stored) < len(mapping.tensors())
    back = load_mapping(tmp_path / "m")
    assert back.fingerprint() == mapping.fingerprint()
    for (name, a), (_, b) in zip(sorted(mapping.tensors().items()), sorted(back.tensors().items())):
        assert a.dtype == b.dtype and torch.equal(a, b), name
    x = torch.randn(5, 16)
    assert torch.equal(back(x), mapping(x))


def test_a_mapping_written_before_the_compact_format_loads_the_same(tmp_path):
    mapping = _staged_flow()
    _write_format_1(mapping, tmp_path / "old")
    back = load_mapping(tmp_path / "old")
    assert back.fingerprint() == mapping.fingerprint()
    assert _stored_names(tmp_path / "old") == set(mapping.tensors())


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["declared"].update({"nosuch": {"as": "zeros", "dtype": "float64",
                                                "shape": [16]}}), "not one of this mapping"),
    (lambda d: next(iter(d["declared"].values())).update(shape=[99999, 99999]),
     "needs a known dtype and a shape"),
    (lambda d: next(iter(d["declared"].values())).update({"as": "magic"}), "not an identity"),
])
def test_a_damaged_declaration_is_refused_naming_the_file(tmp_path, edit, message):
    _staged_flow().save(tmp_path / "m")
    cfg = tmp_path / "m" / "mapping.json"
    spec = json.loads(cfg.read_text())
    edit(spec)
    cfg.write_text(json.dumps(spec))
    with pytest.raises(InputError, match=message) as err:
        load_mapping(tmp_path / "m")
    assert "mapping.json" in str(err.value)


def _old_export(tmp_path, tiny_bert, spec: str) -> Path:
    """An export as crossalign wrote it before: format 1, full weights, a .BAM of the identity."""
    from alignment.encoding.encoder import load_encoder

    ident = load_encoder(str(tiny_bert), layer=-1).identity()
    torch.manual_seed(1)
    mapping = fit_composition(PairMoments.of(torch.randn(200, 32), torch.randn(200, 32)), spec)
    export_remapped(tmp_path / "new-writer", mapping,
                    DataProvenance(ident, "abc", 1500, 200, "bible", "es", "en"))
    old = tmp_path / "old"
    meta = json.loads((tmp_path / "new-writer" / "remap.json").read_text())
    _write_format_1(mapping, old / "mapping")
    files = []
    if spec == "identity":
        np.save(old / "bible.es-en.1k.2.npy", np.eye(32, dtype=np.float32))
        (old / "bible.es-en.1k.2.npy").rename(old / "bible.es-en.1k.2.BAM")
        files = ["bible.es-en.1k.2.BAM"]
    meta.update({"format": "crossalign-remap-1", "xmoverscore_files": files,
                 "xmoverscore_note": None})
    (old / "remap.json").write_text(json.dumps(meta))
    return old


@pytest.mark.parametrize("spec", ["center > clp", "identity"])
def test_an_old_export_loads_and_its_upgrade_scores_the_same_in_fewer_bytes(
        tmp_path, tiny_bert, spec):
    from train.cli import main

    old = _old_export(tmp_path, tiny_bert, spec)
    assert main(["export", "--upgrade", str(old), "--out", str(tmp_path / "up")]) == 0
    up = tmp_path / "up"
    a, b = load_remapped(old), load_remapped(up)
    assert a.signature == b.signature and json.loads((up / "remap.json").read_text())[
        "format"] == "crossalign-remap-2"
    sentences = ["la casa es grande .", "el perro come pan ."]
    for side in ("src", "tgt"):
        for (_, va), (_, vb) in zip(a.encode(sentences, side), b.encode(sentences, side)):
            np.testing.assert_array_equal(va, vb)
    size = lambda f: sum(p.stat().st_size for p in f.rglob("*") if p.is_file())  # noqa: E731
    assert size(up) < size(old)
    assert not list(up.glob("*.BAM"))  # the identity needs no public file; clp had none here


def test_an_unknown_export_format_is_refused_naming_the_field(tmp_path, tiny_bert):
    old = _old_export(tmp_path, tiny_bert, "center > clp")
    meta = json.loads((old / "remap.json").read_text())
    (old / "remap.json").write_text(json.dumps({**meta, "format": "crossalign-remap-9"}))
    with pytest.raises(InputError, match="field 'format' is 'crossalign-remap-9'"):
        load_remapped(old)


def _mapping_bytes(folder: Path) -> int:
    return (folder / "mapping" / "mapping.safetensors").stat().st_size


@pytest.mark.parametrize("remap", sorted(EXPORTS.rglob("remap.json")),
                         ids=lambda p: str(p.parent.relative_to(EXPORTS)))
def test_a_shipped_export_is_no_larger_than_its_kind_needs(remap):
    """The identity stores nothing; a linear map one float64 matrix per moved side and its
    biases; a staged flow its float32 parameters plus that."""
    meta = json.loads(remap.read_text())
    d, folder = meta["dim"], remap.parent
    assert meta["format"] == "crossalign-remap-2"
    linear = d * d * 8 + 4 * d * 8 + 64_000  # header and declarations' slack
    if meta["mapping_type"] == "identity":
        assert _mapping_bytes(folder) < 1_000 and not list(folder.glob("*.BAM"))
    elif "realnvp" not in meta["mapping_type"]:
        assert _mapping_bytes(folder) <= linear
    else:
        flow = load_mapping(folder / "mapping").last
        params = sum(p.numel() for p in flow.parameters())
        assert _mapping_bytes(folder) <= params * 4 + linear
