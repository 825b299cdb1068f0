"""The sentence-level remap: its fit recovers a known map, it saves and loads to the same
fingerprint and refuses damaged files, and a scorer adds it (from an export by default) on
the side its languages say, signed."""
import json

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.xmover.scorer import XMoverScorer
from alignment.xmover.sentence_map import (fit_matrix, fit_sentence_map, load_sentence_map,
                                           sentence_map_from_text)
from tests.conftest import EN, ES


def _rotated(n: int = 400, d: int = 16, noise: float = 0.01, seed: int = 0):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    x = rng.normal(size=(n, d)) + 3.0  # an offset that centring must remove
    y = (x - x.mean(0)) @ q + rng.normal(size=d) + noise * rng.normal(size=(n, d))
    return x, y, q


def test_orthogonal_fit_recovers_a_known_rotation_behind_an_offset():
    x, y, q = _rotated()
    matrix, mx, my = fit_matrix(x, y, "orthogonal")
    np.testing.assert_allclose(matrix, q, atol=0.01)
    smap = fit_sentence_map(x, y, "orthogonal", "de", "en", {"encoder": "toy"})
    matched = smap.similarity(x, y)
    shuffled = smap.similarity(x, y[::-1])
    assert matched.min() > 0.99 and shuffled.mean() < 0.2
    # without the rotation (centring alone) the pairs do not line up
    assert fit_sentence_map(x, y, "centre", "de", "en", {}).similarity(x, y).mean() < 0.5


def test_least_squares_maps_into_a_space_of_another_dimension():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 12))
    a = rng.normal(size=(12, 20))
    y = x @ a + 1.0
    matrix, _, _ = fit_matrix(x, y, "least-squares")
    np.testing.assert_allclose(matrix, a, rtol=0.05, atol=0.05)
    with pytest.raises(InputError, match="use least-squares"):
        fit_matrix(x, y, "orthogonal")
    with pytest.raises(InputError, match="unknown sentence map kind 'rotation'.*orthogonal"):
        fit_matrix(x, y, "rotation")
    with pytest.raises(InputError, match="one vector a pair"):
        fit_matrix(x, y[:-1], "least-squares")


def test_a_saved_map_loads_to_the_same_fingerprint_and_a_damaged_one_is_refused(tmp_path):
    x, y, _ = _rotated(n=50, d=8)
    smap = fit_sentence_map(x, y, "orthogonal", "de", "en", {"encoder": "toy", "layer": 1},
                            coef=0.3, data={"n_pairs": 50})
    smap.save(tmp_path / "m")
    back = load_sentence_map(tmp_path / "m")
    assert back.fingerprint() == smap.fingerprint() and back.coef == 0.3
    assert back.describe() == f"orthogonal:de>en#{smap.fingerprint()}"
    np.testing.assert_allclose(back.similarity(x, y), smap.similarity(x, y), atol=1e-5)
    assert not list(tmp_path.glob("m/*.tmp"))  # nothing half-written left behind
    meta = json.loads((tmp_path / "m" / "sentence_map.json").read_text())
    meta["fingerprint"] = "0" * 16
    (tmp_path / "m" / "sentence_map.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="do not match the fingerprint"):
        load_sentence_map(tmp_path / "m")
    with pytest.raises(InputError, match="no such file"):
        load_sentence_map(tmp_path / "missing")


def test_the_scorer_adds_the_mapped_term_on_the_side_its_languages_say(tiny_bert):
    from alignment.encoding.encoder import load_encoder

    enc = load_encoder(str(tiny_bert), layer=2)
    smap = sentence_map_from_text(enc, ES, EN, "orthogonal", "es", "en", layer=1, coef=0.5)
    assert smap.student["layer"] == 1 and smap.data["n_pairs"] == len(ES)
    plain = XMoverScorer(str(tiny_bert), layer=2).score(ES[:4], EN[:4])
    scorer = XMoverScorer(str(tiny_bert), layer=2, sentence_map=smap, languages=("es", "en"))
    result = scorer.score(ES[:4], EN[:4])  # the weight is the map's own
    np.testing.assert_allclose(result.final, plain.xmover + 0.5 * result.sentence)
    term = scorer.sentence
    np.testing.assert_allclose(result.sentence, smap.similarity(term.vectors(ES[:4]),
                                                                term.vectors(EN[:4])))
    assert f"|sent:L1,mean,map:orthogonal:es>en#{smap.fingerprint()}*0.5|" in result.signature
    # English source, Spanish hypothesis: the hypothesis is the mapped side, and an orthogonal
    # map gives the same cosine either way round
    back = XMoverScorer(str(tiny_bert), layer=2, sentence_map=smap, weights={"sentence": 1.0},
                        languages=("en", "es")).score(EN[:4], ES[:4])
    np.testing.assert_allclose(back.sentence, result.sentence, atol=1e-9)
    assert "es>en#" in back.signature and "@hyp*1" in back.signature
    with pytest.raises(InputError, match="sentence map is for es-en, not de-en"):
        XMoverScorer(str(tiny_bert), layer=2, sentence_map=smap, languages=("de", "en"))
    with pytest.raises(InputError, match="fitted on"):
        XMoverScorer(str(tiny_bert), layer=2, sentence_map=smap, sentence_layer=2)


def test_an_export_with_a_sentence_map_uses_it_by_default(tmp_path, tiny_bert):
    import torch

    from alignment.encoding.encoder import load_encoder
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_remapped
    from alignment.xmover.sentence_map import add_sentence_map
    from alignment.mappings import fit_composition
    from alignment.mappings.moments import PairMoments

    torch.manual_seed(0)
    enc = load_encoder(str(tiny_bert), layer=2)
    clp = fit_composition(PairMoments.of(torch.randn(100, 32), torch.randn(100, 32)), "clp")
    export_remapped(tmp_path / "exp", clp, DataProvenance(enc.identity(), src_lang="es",
                                                          tgt_lang="en"))
    before = XMoverScorer(str(tmp_path / "exp")).score(ES[:3], EN[:3])
    smap = sentence_map_from_text(enc, ES, EN, "orthogonal", "es", "en", coef=0.25)
    meta = add_sentence_map(tmp_path / "exp", smap)
    assert meta["sentence_map"] == smap.describe()
    after = XMoverScorer(str(tmp_path / "exp")).score(ES[:3], EN[:3])
    np.testing.assert_allclose(after.xmover, before.xmover)
    np.testing.assert_allclose(after.final, before.xmover + 0.25 * after.sentence)
    assert smap.fingerprint() in after.signature
    off = XMoverScorer(str(tmp_path / "exp"), sentence_map="none").score(ES[:3], EN[:3])
    assert off.sentence is None and off.signature == before.signature
    with pytest.raises(InputError, match="not an export"):
        add_sentence_map(tmp_path, smap)


def test_a_second_map_without_a_space_reads_the_terms_own_encoder_again(tiny_bert):
    from alignment.encoding.encoder import load_encoder
    from alignment.xmover.sentence_vectors import SentenceSimilarity

    enc = load_encoder(str(tiny_bert), layer=2)
    spaced = sentence_map_from_text(enc, ES, EN, "least-squares", "es", "en", layer=1,
                                    space=str(tiny_bert))
    plain = sentence_map_from_text(enc, ES, EN, "orthogonal", "es", "en", layer=1)
    term = SentenceSimilarity(enc, 1).with_map(spaced, ("es", "en"))
    assert term.space is not None
    term.with_map(plain, ("es", "en"))
    assert term.space is None  # the old map's space would give English the wrong vectors
    np.testing.assert_allclose(term.side_vectors(EN[:3], "hyp"), term.vectors(EN[:3]))
