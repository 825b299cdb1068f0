"""LibreOffice help pages as X–en pairs: paragraphs matched by id across languages, untranslated
and repeated ones dropped, the Bible's split rule, the package versions recorded."""
from __future__ import annotations

import json

import pytest

from alignment.data.pair_corpus import build_pair_corpus, corpus_folder
from alignment.data.help_pages import build_help_corpus, default_root, read_help
from alignment.errors import InputError

PAGE = """<html><body><h1 id="hd_id1">{h}</h1>
<p id="par_id10" class="paragraph" dir="auto"><span class="avis">{a}</span></p>
<p id="par_id11" class="paragraph">{b}</p><p id="par_id12">{same}</p>
<td><p id="par_id13">{rep}</p></td><p class="x">no id: not a pair</p></body></html>"""


def write_tree(root, n_pages=40):
    for lang, words in (("en-US", ("Colors", "Specifies the colors.", "Saves &amp; quits.")),
                        ("eu", ("Koloreak", "Koloreak zehazten ditu.", "Gorde eta irten."))):
        for k in range(n_pages):
            page = root / lang / "text" / "shared" / f"{k:04d}.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(PAGE.format(h=f"{words[0]} {k}", a=f"{words[1]} {k}",
                                        b=f"{words[2]} {k}", same="print()",
                                        rep=words[0]), encoding="utf-8")
    (root / "versions.eu.json").write_text(json.dumps({"libreoffice-help-eu": "4:7.4.7-1"}))


def test_paragraphs_are_keyed_by_page_and_id(tmp_path):
    write_tree(tmp_path, 2)
    en = read_help(tmp_path, "en")
    assert en["shared/0001.html#par_id11"] == "Saves & quits. 1"
    assert len(en) == 2 * 5 and all("#" in k for k in en)


def test_a_corpus_keeps_translated_distinct_pairs_and_records_the_packages(tmp_path):
    write_tree(tmp_path / "help")
    rep = build_help_corpus(tmp_path / "out", "eu", n_test=20, n_dev=20, root=tmp_path / "help")
    # per page: heading + 2 paragraphs kept; "print()" untranslated; the repeated cell once
    assert rep["kept"] == 40 * 3 + 1 and rep["dropped"]["untranslated"] == 40
    assert rep["dropped"]["repeated"] == 39
    eu = (tmp_path / "out" / "test.eu").read_text(encoding="utf-8").splitlines()
    en = (tmp_path / "out" / "test.en").read_text(encoding="utf-8").splitlines()
    assert len(eu) == len(en) == 20 and rep["splits"]["train"] == 121 - 40
    assert all(a.split()[-1] == b.split()[-1] for a, b in zip(eu, en) if a[-1].isdigit())
    assert rep["provenance"]["eu"]["version"] == "4:7.4.7-1"


def test_missing_pages_name_the_fetch_command(tmp_path):
    with pytest.raises(InputError, match="--fetch"):
        build_help_corpus(tmp_path / "out", "eu", root=tmp_path / "nothing")


def test_basque_goes_through_the_test_beds_entry_point(tmp_path):
    write_tree(default_root())  # where a fetch unpacks them
    assert corpus_folder("eu-en") == "data/help-eu-en"
    rep = build_pair_corpus(tmp_path / "eu", "eu-en", n_test=20, n_dev=20)
    assert rep.kept == 121 and (tmp_path / "eu" / "train.eu").is_file()
