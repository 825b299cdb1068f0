"""Shipped word links: the links a documented table used travel with the package, keyed by the
corpus's tokens, seed and symmetrisation (not by this machine's eflomal build), verified by
sha256 on use, and name the aligner that made them — so the demo's table is the same whatever
compiler built eflomal. A damaged entry is not used: the links are computed instead."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from alignment.data import shipped_links
from alignment.data.shipped_links import (INDEX, SHIPPED_DIR, aligner_of, find_shipped, ship,
                                          shipped_key, token_fingerprints)
from alignment.data.word_align import links_fingerprint

SRC = [["la", "casa", "es", "grande"], ["el", "perro", "come"]]
TGT = [["the", "house", "is", "big"], ["the", "dog", "eats"]]
LINKS = [[(0, 0), (1, 1), (2, 2), (3, 3)], [(0, 0), (1, 1), (2, 2)]]
MADE_BY = "eflomal-2.0.0@0badc0de,seed=0,grow-diag-final-and"


def test_shipped_links_come_back_verified_and_name_their_aligner(tmp_path):
    ship(tmp_path, SRC, TGT, LINKS, 0, "grow-diag-final-and", MADE_BY)
    assert find_shipped(SRC, TGT, 0, "grow-diag-final-and", tmp_path) == LINKS
    assert aligner_of(links_fingerprint(LINKS), "this machine's", tmp_path) == MADE_BY
    assert aligner_of(links_fingerprint([[(0, 0)], [(0, 0)]]), "this machine's",
                      tmp_path) == "this machine's"
    # another seed, symmetrisation or text is another entry; unseeded links are never shipped
    assert find_shipped(SRC, TGT, 1, "grow-diag-final-and", tmp_path) is None
    assert find_shipped(SRC, TGT, 0, "intersect", tmp_path) is None
    assert find_shipped(SRC, [["a", "house"], TGT[1]], 0, "grow-diag-final-and", tmp_path) is None
    assert find_shipped(SRC, TGT, None, "grow-diag-final-and", tmp_path) is None


@pytest.mark.parametrize("damage", ["bytes", "index", "links"])
def test_a_damaged_shipped_entry_is_not_used(tmp_path, damage):
    path = ship(tmp_path, SRC, TGT, LINKS, 0, "grow-diag-final-and", MADE_BY)
    if damage == "bytes":
        path.write_bytes(path.read_bytes()[:-3])
    elif damage == "index":
        (tmp_path / INDEX).write_text("{not json")
    else:  # a file that verifies but whose links index past the sentence
        ship(tmp_path, SRC, TGT, [[(0, 9)], [(0, 0)]], 0, "grow-diag-final-and", MADE_BY)
    with pytest.warns(UserWarning):
        assert find_shipped(SRC, TGT, 0, "grow-diag-final-and", tmp_path) is None


def test_word_alignment_uses_shipped_links_without_running_the_aligner(tmp_path, monkeypatch):
    from alignment.encoding import pipeline

    ship(tmp_path, SRC, TGT, LINKS, 0, "grow-diag-final-and", MADE_BY)
    monkeypatch.setattr(shipped_links, "SHIPPED_DIR", tmp_path)
    monkeypatch.setattr(pipeline, "find_shipped",
                        lambda *a, **k: find_shipped(*a, **{**k, "folder": tmp_path}))

    def no_aligner(*args, **kwargs):
        raise AssertionError("eflomal ran although the links are shipped")

    monkeypatch.setattr(pipeline, "eflomal_align", no_aligner)
    assert pipeline.word_alignment(SRC, TGT, cache_dir=tmp_path / "cache") == LINKS


def test_the_shipped_demo_links_are_the_ones_docs_results_names():
    """The committed links verify, and their fingerprint and aligner are the ones the demo's
    documented signature (docs/results.md) names: README command 1 prints that table on any
    machine."""
    index = json.loads((SHIPPED_DIR / INDEX).read_text(encoding="utf-8"))
    documented = (Path(__file__).parents[2] / "docs" / "results.md").read_text(encoding="utf-8")
    align, links = re.search(r"\|align:([^|\s]+)\|links:([0-9a-f]+)", documented).groups()
    entries = [e for e in index["entries"].values() if e["links"].startswith(links)]
    assert len(entries) == 1 and entries[0]["aligner"] == align
    import hashlib

    packed = (SHIPPED_DIR / entries[0]["file"]).read_bytes()
    assert hashlib.sha256(packed).hexdigest() == entries[0]["sha256"]
    assert len(shipped_key(token_fingerprints(SRC, TGT), 0, "x")) == 24
    assert links_fingerprint(LINKS) != links
