"""The cache heals: a joined GGUF that no longer matches its package's sha256 (cut short by a
full disk, edited) is joined again with a note, never read and never left to fail every later
run."""
from __future__ import annotations

import hashlib
import sys
import types

from alignment.terms import Runtime
from alignment.xmover.gguf import assembled_gguf, gguf_fingerprint

CONTENT = b"GGUF" + bytes(range(256)) * 64


def _package(monkeypatch) -> list[int]:
    """A package that joins ``model.gguf`` from its parts, as the Gemma packages do."""
    joins: list[int] = []
    module = types.ModuleType("fake_gguf_parts")
    module.EXPECTED_SHA256 = hashlib.sha256(CONTENT).hexdigest()

    def assemble(path, overwrite=False):
        joins.append(1)
        with open(path, "wb") as fh:
            fh.write(CONTENT)
        return path

    module.assemble = assemble
    monkeypatch.setitem(sys.modules, "fake_gguf_parts", module)
    return joins


def test_a_truncated_join_is_joined_again_with_a_note(monkeypatch, capsys):
    joins = _package(monkeypatch)
    folder = assembled_gguf("fake_gguf_parts", "model.gguf")
    assert (folder / "model.gguf").read_bytes() == CONTENT and len(joins) == 1
    assert assembled_gguf("fake_gguf_parts", "model.gguf") == folder and len(joins) == 1
    first = gguf_fingerprint(str(folder), "model.gguf")
    (folder / "model.gguf").write_bytes(CONTENT[:100])  # a disk that filled while joining
    capsys.readouterr()
    assert assembled_gguf("fake_gguf_parts", "model.gguf") == folder
    assert "does not match its package's sha256" in capsys.readouterr().err
    assert (folder / "model.gguf").read_bytes() == CONTENT and len(joins) == 2
    assert gguf_fingerprint(str(folder), "model.gguf") == first
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]


def _rewrite(path, **arrays):
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        kept = {k: data[k] for k in data.files}
    kept.update(arrays)
    with path.open("wb") as fh:
        np.savez(fh, **kept)


def test_reuse_entries_of_the_wrong_shape_kind_or_values_are_dropped_and_recomputed(
        tiny_bert, tiny_gpt2, tmp_path, capsys):
    """Each kept file altered in one way (rows of another width, another producer's entry, NaN
    values, garbled token lists): the score is the computed one, one note, the entry is
    rewritten right, and a non-finite result is never kept."""
    import numpy as np

    from alignment.xmover import reuse
    from alignment.xmover.scorer import XMoverScorer
    from tests.conftest import EN, ES

    plain = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2)).score(ES, EN)
    XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2),
                 runtime=Runtime.of(reuse=tmp_path)).score(ES, EN)
    files = sorted(tmp_path.glob("*.npz"))
    assert len(files) == 3
    alterations = [
        {"vectors": np.ones((3, 5), np.float32)},  # another shape
        {"producer": np.frombuffer(b"something else", np.uint8)},  # another kind's entry
        {"values": np.full(len(ES), np.nan)},  # non-finite LM scores
        {"tokens": np.frombuffer(b"[not json", np.uint8)},
        {"values": np.array(["a"] * len(ES))},  # strings where numbers belong
    ]
    for change in alterations:
        for path in files:
            with np.load(path, allow_pickle=False) as data:
                if set(change) - {"producer"} <= set(data.files):
                    _rewrite(path, **change)
        reuse._NOTED.clear()
        capsys.readouterr()
        got = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2),
                           runtime=Runtime.of(reuse=tmp_path)).score(ES, EN)
        np.testing.assert_array_equal(got.final, plain.final)
        np.testing.assert_array_equal(got.lm, plain.lm)
        err = capsys.readouterr().err
        assert err.count("a reused result in") == 1 and "recomputed" in err, (change, err)
    # a result that is itself non-finite is returned but never kept
    assert reuse.cached_array(tmp_path, "p", ["a"], lambda s: np.array([np.inf])).tolist() == [np.inf]
    assert not (tmp_path / f"{reuse.list_key('p', ['a'])}.npz").exists()
