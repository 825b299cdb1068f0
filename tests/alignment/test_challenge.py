"""The challenge set built for real: apertium translates, FreeDict-style lexicon, on disk."""
import json
import shutil

import numpy as np
import pytest

import alignment.evaluation.challenge as challenge_module
from alignment.evaluation.challenge import (CANDIDATES, build_challenge, challenge_outcomes, score_challenge,
                                            summarise)
from alignment.errors import InputError

SPANISH = ["El hombre come pan.", "La mujer no quiere agua.", "Moisés subió al monte.",
           "Tengo dos hermanos.", "El perro es grande.", "Los niños juegan en la casa.",
           "Aarón habló al pueblo.", "Había diez hombres en la ciudad.", "El rey no vino.",
           "La casa es blanca.", "Dios creó los cielos.", "El pan es bueno.",
           "Ella tiene tres hijos.", "El agua está fría.", "Pedro vio el mar.",
           "Los hombres comen juntos.", "El libro es nuevo.", "La ciudad es grande.",
           "Juan no habló.", "Tenemos cinco panes."]
ENGLISH = ["The man eats bread.", "The woman does not want water.", "Then Moses went up the mountain.",
           "I have two brothers.", "The dog is big.", "The children play in the house.",
           "Then Aaron spoke to the people.", "There were ten men in the city.", "The king did not come.",
           "The house is white.", "God created the heavens.", "The bread is good.",
           "She has three sons.", "The water is cold.", "Then Peter saw the sea.",
           "The men eat together.", "The book is new.", "The city is big.",
           "Then John did not speak.", "We have five loaves."]
pytestmark = pytest.mark.skipif(shutil.which("apertium") is None,
                                reason="apertium not installed (apt-get install apertium-eng-spa)")


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "src.es").write_text("\n".join(SPANISH) + "\n")
    (tmp_path / "ref.en").write_text("\n".join(ENGLISH) + "\n")
    (tmp_path / "lex.tsv").write_text("el\tthe\nhombre\tman\ncome\teats\npan\tbread\nla\tthe\n"
                                      "casa\thouse\nes\tis\ngrande\tbig\n")
    return tmp_path / "src.es", tmp_path / "ref.en", tmp_path / "lex.tsv"


def test_a_challenge_set_is_built_with_apertium_and_cached(corpus, tmp_path, monkeypatch):
    src, ref, lex = corpus
    c = build_challenge(src, ref, lex, cache_dir=tmp_path / "cache")
    assert len(c) == 20 and set(c.candidates) == set(CANDIDATES)
    assert c.candidates["reference"] == ENGLISH
    mt = c.candidates["mt"]
    assert len(mt) == 20 and all(mt) and mt != SPANISH and "bread" in mt[0].lower()
    assert c.candidates["literal"][0] == "the man eats bread ."
    # negation applies exactly where there is a "not" or an auxiliary to put one after
    has_aux = [any(w in {"is", "have", "has", "were", "does", "did"} for w in e.lower().split())
               for e in ENGLISH]
    assert [x is not None for x in c.candidates["negation"]] == has_aux and sum(has_aux) == 13
    assert c.candidates["negation"][8] == "The king did come."
    assert sum(x is not None for x in c.candidates["number"]) == 4  # two, ten, three, five
    assert "mt:apertium-eng-spa=" in c.signature or "mt:unknown" in c.signature
    # cached by content: the second build does not run apertium
    monkeypatch.setattr(challenge_module, "apertium_translate",
                        lambda *a, **k: pytest.fail("apertium ran again"))
    again = build_challenge(src, ref, lex, cache_dir=tmp_path / "cache")
    assert again.candidates == c.candidates and again.signature == c.signature


def test_the_cache_key_follows_the_seed_and_the_data(corpus, tmp_path):
    src, ref, lex = corpus
    a = build_challenge(src, ref, lex, n=10, cache_dir=tmp_path / "cache")
    b = build_challenge(src, ref, lex, n=10, seed=1, cache_dir=tmp_path / "cache")
    assert a.signature != b.signature and a.candidates["mt"] == b.candidates["mt"]
    assert a.candidates["shuffle"] != b.candidates["shuffle"]
    assert len(list((tmp_path / "cache" / "challenge").glob("*.json"))) == 2


def test_missing_apertium_is_a_clear_error_before_any_work(corpus, tmp_path, monkeypatch):
    src, ref, lex = corpus
    monkeypatch.setattr(challenge_module.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match="apertium is not installed"):
        build_challenge(src, ref, lex, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_outcomes_count_rankings_and_perturbations_where_they_apply():
    scores = {k: np.array([0.5, 0.5, 0.5]) for k in CANDIDATES}
    scores["reference"] = np.array([0.9, 0.4, 0.9])
    scores["mt"] = np.array([0.8, 0.6, 0.7])
    scores["literal"] = np.array([0.7, 0.5, 0.8])
    scores["number"] = np.array([np.nan, 0.3, 0.95])
    out = challenge_outcomes(scores)
    assert out["ranking"].tolist() == [1, 0, 0] and out["ref>literal"].tolist() == [1, 0, 1]
    assert out["number"].tolist() == [1, 0]  # only where a number was changed
    summary = summarise(out, n_boot=200)
    assert summary["ranking"]["share"] == pytest.approx(1 / 3) and summary["number"]["n"] == 2
    assert summary["ranking"]["lo"] <= 1 / 3 <= summary["ranking"]["hi"]


def test_scoring_calls_the_metric_once_and_puts_each_score_in_its_place(corpus, tmp_path):
    src, ref, lex = corpus
    c = build_challenge(src, ref, lex, n=5, cache_dir=tmp_path / "cache")
    calls = []

    def metric(sources, hyps):
        calls.append(len(hyps))
        return {"": np.array([len(h) for h in hyps], dtype=float)}

    scores = score_challenge(c, metric)[""]
    assert len(calls) == 1
    for kind in CANDIDATES:
        for i, text in enumerate(c.candidates[kind]):
            assert np.isnan(scores[kind][i]) if text is None else scores[kind][i] == len(text)


def test_a_cached_set_with_a_list_cut_short_is_built_again(corpus, tmp_path):
    src, ref, lex = corpus
    c = build_challenge(src, ref, lex, n=10, cache_dir=tmp_path / "cache")
    (entry,) = (tmp_path / "cache" / "challenge").glob("*.json")
    stored = json.loads(entry.read_text())
    stored["candidates"]["mt"] = stored["candidates"]["mt"][:3]
    entry.write_text(json.dumps(stored))
    with pytest.warns(UserWarning, match="is incomplete; building it again"):
        again = build_challenge(src, ref, lex, n=10, cache_dir=tmp_path / "cache")
    assert again.candidates == c.candidates and len(again.candidates["mt"]) == 10
