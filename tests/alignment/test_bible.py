import os

import pytest

from alignment.data.bible import (align_verses, build_bible, clean_osis, misaligned_chapter,
                                  modernize_rv1909, split_ids)


def test_footnotes_become_a_space_not_glued_words():
    raw = ('In the beginning, God<note placement="foot"><reference>1:1 </reference>The Hebrew '
           'word is Elohim.</note><w lemma="strong:H1254">created</w> the heavens.')
    assert clean_osis(raw) == "In the beginning, God created the heavens."


def test_canonical_psalm_title_is_kept_and_headings_dropped():
    raw = ('<div type="x-milestone"/><title canonical="true" type="psalm">A Psalm by David.</title>'
           ' <l level="1"/>Yahweh, how my adversaries have increased!<l eID="x"/>'
           '<title type="section">Section heading</title>')
    assert clean_osis(raw) == "A Psalm by David. Yahweh, how my adversaries have increased!"


def test_glossary_after_the_last_verse_is_cut():
    raw = ('<w>The</w> grace of the Lord be with all the saints. Amen. <chapter eID="Rev.22"/>'
           '<div canonical="true" eID="gen1" osisID="Rev" type="book"/> <div sID="g" type="glossary"/>'
           '<title>World English Bible Glossary</title> The following words used in the WEB ...')
    assert clean_osis(raw) == "The grace of the Lord be with all the saints. Amen."


def test_1909_spelling_is_modernised():
    assert modernize_rv1909("Y fué la tarde, y vió Dios que era bueno; y dió á Abraham é hijos") \
        == "Y fue la tarde, y vio Dios que era bueno; y dio a Abraham e hijos"
    assert modernize_rv1909("EN el principio crió Dios") == "En el principio crió Dios"
    assert modernize_rv1909("Fué así") == "Fue así"


def test_shifted_versification_is_detected():
    lengths = [30, 80, 45, 120, 60, 25, 90, 40, 110, 70]
    es = ["x" * n for n in lengths]
    en_aligned = ["y" * int(n * 1.1) for n in lengths]
    en_shifted = ["y" * 50] + en_aligned[:-1]  # English numbering runs one verse behind
    assert not misaligned_chapter(es, en_aligned)
    assert misaligned_chapter(es, en_shifted)


def test_align_verses_reports_what_it_drops():
    es = {"Gen.1.1": "a" * 40, "Gen.1.2": "b" * 40, "Gen.1.3": "", "Gen.1.4": "c" * 200}
    en = {"Gen.1.1": "A" * 42, "Gen.1.2": "B" * 38, "Gen.1.3": "C" * 10, "Gen.1.4": "D" * 20,
          "Tob.1.1": "only English"}
    from alignment.data.bible import BibleReport

    rep = BibleReport()
    corpus = align_verses(es, en, 2.0, rep)
    assert corpus.ids == ["Gen.1.1", "Gen.1.2"]
    assert (rep.common_verses, rep.dropped_empty, rep.dropped_length_ratio) == (4, 1, 1)


def test_splits_are_deterministic_disjoint_and_seeded():
    ids = [f"Gen.1.{k}" for k in range(1, 101)]
    a, b = split_ids(ids, 10, 5, seed=0), split_ids(ids, 10, 5, seed=0)
    assert a == b
    assert len(a["test"]) == 10 and len(a["dev"]) == 5 and len(a["train"]) == 85
    assert not set(a["test"]) & set(a["train"]) and not set(a["dev"]) & set(a["train"])
    assert split_ids(ids, 10, 5, seed=1)["test"] != a["test"]
    # a verse's split does not depend on the other verses present
    fewer = split_ids(ids[:90], 10, 5, seed=0)
    kept_test = {ids[k] for k in a["test"]} & set(ids[:90])
    assert kept_test <= {ids[k] for k in fewer["test"]} | {ids[k] for k in fewer["dev"]}


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/usr/share/sword/modules/texts/ztext/engWEB2015eb"),
                    reason="Debian's sword-text-web / sword-text-sparv are not installed")
def test_build_bible_from_the_real_modules(tmp_path):
    rep = build_bible(tmp_path, n_test=200, n_dev=200)
    assert rep.kept > 29000 and rep.splits["test"] == 200
    en = (tmp_path / "train.en").read_text(encoding="utf-8").splitlines()
    es = (tmp_path / "train.es").read_text(encoding="utf-8").splitlines()
    assert len(en) == len(es) == rep.splits["train"]
    assert en[0] == "In the beginning, God created the heavens and the earth."
    assert es[0] == "En el principio crió Dios los cielos y la tierra."
    assert not any("Glossary" in line or "<" in line for line in en)
    assert not any(" fué " in line or " vió " in line for line in es)
