"""The same `train` command twice, each with an empty cache (so eflomal aligns afresh), gives
the same links, the same map and the same signature; the run and the export say which aligner,
build and seed made the links."""
from __future__ import annotations

import json

import pytest

from alignment.signature import parse_signature
from tests.conftest import EN, ES
from train.cli import main

pytest.importorskip("eflomal")


def _train(tmp_path, monkeypatch, name: str, *extra: str) -> dict:
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / f"cache-{name}"))  # align afresh
    src, tgt = tmp_path / "own.es", tmp_path / "own.en"
    src.write_text("".join(s + "\n" for s in ES * 4))
    tgt.write_text("".join(t + "\n" for t in EN * 4))
    out = tmp_path / name
    assert main(["train", "--method", "center > clp", "--src", str(src), "--tgt", str(tgt),
                 "--out", str(out), *extra]) == 0
    return {"run": json.loads((out / "run.json").read_text()),
            "remap": json.loads((out / "export" / "remap.json").read_text())}


def test_two_fresh_caches_give_the_same_links_map_and_signature(tmp_path, monkeypatch, tiny_bert):
    a = _train(tmp_path, monkeypatch, "a", "--encoder", str(tiny_bert), "--align-seed", "3")
    b = _train(tmp_path, monkeypatch, "b", "--encoder", str(tiny_bert), "--align-seed", "3")
    assert a["run"]["alignment"] == b["run"]["alignment"]
    assert a["run"]["mapping_fingerprint"] == b["run"]["mapping_fingerprint"]
    assert a["remap"]["signature"] == b["remap"]["signature"]
    aligner = a["run"]["aligner"]
    assert aligner.startswith("eflomal-") and aligner.endswith(",seed=3,grow-diag-final-and")
    assert a["remap"]["aligner"] == aligner
    assert parse_signature(a["remap"]["signature"])["align"] == aligner


def test_align_seed_is_checked_by_the_parser(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--method", "clp", "--src", "a.es", "--tgt", "a.en", "--out",
              str(tmp_path / "x"), "--align-seed", "-4"])
    assert exit_.value.code == 2 and "--align-seed" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
