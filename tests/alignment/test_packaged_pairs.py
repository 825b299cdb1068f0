"""X–English pairs from the machine's packages (``crossalign data parallel``): compiled gettext
catalogues read in their own charset, pairs checked and de-duplicated across sources, counted
and split by id, the provenance of each source recorded."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from alignment.data.packaged_pairs import (build_parallel_corpus, clean_message, pair_problem,
                                          read_mo)
from alignment.errors import InputError
from tests.alignment.test_help_pages import write_tree
from train.cli import main


def write_mo(path: Path, messages: list[tuple[bytes, bytes]], charset: str = "UTF-8",
             big_endian: bool = False) -> Path:
    """A compiled catalogue (GNU .mo format) holding a header and ``messages``."""
    header = f"Content-Type: text/plain; charset={charset}\n".encode("ascii")
    entries = sorted([(b"", header), *messages])
    order = ">" if big_endian else "<"
    n = len(entries)
    originals, translations = 28, 28 + 8 * n
    data_at = 28 + 16 * n
    table_o, table_t, blob = b"", b"", b""
    for msgid, _ in entries:
        table_o += struct.pack(order + "2I", len(msgid), data_at + len(blob))
        blob += msgid + b"\0"
    for _, msgstr in entries:
        table_t += struct.pack(order + "2I", len(msgstr), data_at + len(blob))
        blob += msgstr + b"\0"
    magic = 0x950412DE
    head = struct.pack(order + "7I", magic, 0, n, originals, translations, 0, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + table_o + table_t + blob)
    return path


def test_a_catalogue_is_read_in_its_charset_with_plurals_and_contexts(tmp_path):
    path = write_mo(tmp_path / "x.mo", [
        ("Could not open the file".encode(), "Datei konnte nicht geöffnet werden".encode("latin-1")),
        (b"menu\x04_Open a file now", "Jetzt eine Datei _öffnen".encode("latin-1")),
        (b"%d file was copied\x00%d files were copied",
         "%d Datei wurde kopiert\0%d Dateien wurden kopiert".encode("latin-1"))], "ISO-8859-1")
    got = dict(read_mo(path))
    assert got["Could not open the file"] == "Datei konnte nicht geöffnet werden"
    assert got["_Open a file now"] == "Jetzt eine Datei _öffnen"
    assert got["%d file was copied"] == "%d Datei wurde kopiert"
    assert "" not in got  # the header is no message
    assert dict(read_mo(write_mo(tmp_path / "be.mo", [(b"One two three", b"Eins zwei drei")],
                                 big_endian=True))) == {"One two three": "Eins zwei drei"}
    (tmp_path / "bad.mo").write_bytes(b"\0" * 40)
    with pytest.raises(InputError, match="bad magic number") as err:
        read_mo(tmp_path / "bad.mo")
    assert "bad.mo" in str(err.value)


def test_pairs_are_refused_for_what_is_wrong_with_them():
    assert clean_message("_Save the\\nfile  &now") == "Save the file now"
    assert pair_problem("Die Datei speichern", "Save the file", "de", min_words=3) is None
    assert pair_problem("Speichern", "Save", "de", min_words=3) == "short"
    assert pair_problem("Save the file", "Save the file", "de") == "untranslated"
    assert pair_problem("the file Save", "Save the file", "de") == "untranslated"
    assert pair_problem("Eine sehr lange deutsche Übersetzung von drei Wörtern", "Save the file",
                        "de") == "length_ratio"
    assert pair_problem("保存文件", "Save the file", "zh") is None  # 4 characters count as 12
    assert pair_problem("Save the fichier", "Save the file", "zh") == "script"
    assert pair_problem("%s: %s (%d)", "%s: %s (%d) to", "de") == "format"


def catalogues(root: Path) -> Path:
    msgs = [(f"Could not open file number {k}".encode(), f"Datei Nummer {k} nicht geöffnet".encode())
            for k in range(30)]
    write_mo(root / "de" / "LC_MESSAGES" / "tool.mo", msgs + [(b"Quit", b"Beenden"),
                                                             (b"Print the page", b"Print the page")])
    # a second catalogue repeats one German sentence: kept once
    write_mo(root / "de" / "LC_MESSAGES" / "other.mo", [
        (b"Could not open file number 3", "Datei Nummer 3 nicht geöffnet".encode()),
        (b"Close every window now", "Jetzt jedes Fenster schließen".encode())])
    return root


def test_a_corpus_from_two_sources_counts_each_and_keeps_a_sentence_once(tmp_path):
    locale = catalogues(tmp_path / "locale")
    help_root = tmp_path / "help"
    write_tree(help_root, 10)
    (help_root / "de").symlink_to(help_root / "eu")  # the help tree's pages, read as German
    (help_root / "versions.de.json").write_text(json.dumps({"libreoffice-help-de": "4:7.4.7-1"}))
    rep = build_parallel_corpus(tmp_path / "out", "de", ("gettext", "help"), n_test=5, n_dev=5,
                                min_words=1, locale_root=locale, help_root=help_root)
    assert rep["kept"]["gettext"] == 32 and rep["dropped"]["gettext"] == {
        "repeated": 1, "untranslated": 1}
    assert rep["kept"]["help"] == 10 * 3 + 1
    assert rep["provenance"]["help"]["de"]["version"] == "4:7.4.7-1"
    assert set(rep["provenance"]["gettext"]) == {"tool.mo", "other.mo"}
    out = tmp_path / "out"
    de = [line for s in ("train", "dev", "test") for line in
          (out / f"{s}.de").read_text(encoding="utf-8").splitlines()]
    en = [line for s in ("train", "dev", "test") for line in
          (out / f"{s}.en").read_text(encoding="utf-8").splitlines()]
    assert len(de) == len(set(de)) == len(en) == 32 + 31
    assert ("Datei Nummer 7 nicht geöffnet", "Could not open file number 7") in set(zip(de, en))
    ids = (out / "test.ids").read_text().split()
    again = build_parallel_corpus(tmp_path / "again", "de", ("gettext", "help"), n_test=5,
                                  n_dev=5, min_words=1, locale_root=locale, help_root=help_root)
    assert again == rep and (tmp_path / "again" / "test.ids").read_text().split() == ids


def test_bad_settings_and_too_little_text_fail_before_anything_is_written(tmp_path):
    locale = catalogues(tmp_path / "locale")
    with pytest.raises(InputError, match="sources must be among gettext, help"):
        build_parallel_corpus(tmp_path / "a", "de", ("opus",), locale_root=locale)
    with pytest.raises(InputError, match="too few for 1000 test"):
        build_parallel_corpus(tmp_path / "b", "de", ("gettext",), locale_root=locale)
    with pytest.raises(InputError, match="no gettext catalogues for 'fi'"):
        build_parallel_corpus(tmp_path / "c", "fi", ("gettext",), locale_root=locale)
    assert not any((tmp_path / x).exists() for x in "abc")


def test_the_data_parallel_verb_writes_the_corpus_and_refuses_other_settings(tmp_path, capsys):
    locale = catalogues(tmp_path / "locale")
    common = ["data", "parallel", "--pair", "de-en", "--sources", "gettext", "--locale-root",
              str(locale), "--out", str(tmp_path / "out"), "--n-test", "4", "--n-dev", "4"]
    assert main(common + ["--min-words", "1"]) == 0
    err = capsys.readouterr().err
    assert "gettext: 32 pairs kept" in err and "test 4, dev 4, train 24" in err
    assert main(common + ["--min-words", "3"]) == 2  # the folder holds other settings
    assert "min_words 1 (asked: 3)" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/usr/share/locale/de/LC_MESSAGES").is_dir(),
                    reason="needs this machine's German gettext catalogues")
def test_the_machines_own_german_catalogues_give_thousands_of_checked_pairs(tmp_path):
    rep = build_parallel_corpus(tmp_path / "out", "de", ("gettext",), n_test=100, n_dev=100)
    assert rep["kept"]["gettext"] > 2000
    assert all(p["package"] and p["licence"] for p in rep["provenance"]["gettext"].values())
    de = (tmp_path / "out" / "train.de").read_text(encoding="utf-8").splitlines()
    assert all(pair_problem(a, b, "de", 2.0, 3) is None for a, b in zip(
        de, (tmp_path / "out" / "train.en").read_text(encoding="utf-8").splitlines()))


def test_a_broken_catalogue_is_refused_alone_and_skipped_among_the_machines(tmp_path):
    """A table past the end of the file or an unknown charset is one line naming the file;
    among a language's catalogues it is skipped with a count and a warning, not a crash."""
    locale = tmp_path / "locale" / "de" / "LC_MESSAGES"
    good = [(f"Save the file number {k} now".encode(), f"Die Datei Nummer {k} jetzt speichern"
             .encode()) for k in range(40)]
    write_mo(locale / "good.mo", good)
    truncated = write_mo(locale / "cut.mo", good).read_bytes()
    (locale / "cut.mo").write_bytes(truncated[:60])
    write_mo(locale / "charset.mo", good[:3], charset="X-NO-SUCH-CHARSET")
    for name, message in (("cut.mo", "past the end of the file"), ("charset.mo", "charset Python cannot decode")):
        with pytest.raises(InputError, match=message) as err:
            read_mo(locale / name)
        assert name in str(err.value)
    with pytest.warns(UserWarning, match="2 of 3 gettext catalogues of 'de' could not be read"):
        rep = build_parallel_corpus(tmp_path / "out", "de", ("gettext",), n_test=5, n_dev=5,
                                    locale_root=tmp_path / "locale")
    assert rep["kept"]["gettext"] == 40
    assert "skipped" in rep["provenance"]["gettext"]["cut.mo"]


@pytest.mark.parametrize("option, value, parameter", [
    ("n_test", -5, "n-test"), ("n_dev", -1, "n-dev"), ("max_ratio", float("nan"), "max-ratio"),
    ("max_ratio", 0.5, "max-ratio"), ("min_words", 0, "min-words")])
def test_split_sizes_and_ratios_are_checked_before_anything_is_read(tmp_path, option, value,
                                                                    parameter):
    settings = {"n_test": 5, "n_dev": 5, "max_ratio": 2.0, "min_words": 3, option: value}
    with pytest.raises(InputError, match=f"parameter '{parameter}'"):
        build_parallel_corpus(tmp_path / "out", "de", ("gettext",),
                              locale_root=tmp_path / "nowhere", **settings)
    assert not (tmp_path / "out").exists()


def test_data_parallel_with_a_negative_split_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["data", "parallel", "--pair", "de-en", "--n-test", "-100", "--out", str(out),
                 "--locale-root", str(tmp_path), "--no-fetch"]) == 2
    assert "parameter 'n-test': must be a whole number >= 0" in capsys.readouterr().err
    assert not out.exists()


def test_a_pair_with_no_english_side_pivots_on_the_messages_both_translate(tmp_path, capsys):
    locale = catalogues(tmp_path / "locale")
    fr = [(f"Could not open file number {k}".encode(), f"Fichier numéro {k} non ouvert".encode())
          for k in range(0, 30, 2)]  # half of German's messages
    write_mo(locale / "fr" / "LC_MESSAGES" / "tool.mo", fr + [
        (b"Quit", b"Quitter"), (b"Print the page", b"Imprimer la page"),
        (b"A message German lacks", b"Un message que l'allemand n'a pas")])
    # a catalogue of another name: its messages are not the same ones
    write_mo(locale / "fr" / "LC_MESSAGES" / "third.mo", [
        (b"Close every window now", "Fermer toutes les fenêtres".encode())])
    rep = build_parallel_corpus(tmp_path / "out", "de", ("gettext",), n_test=2, n_dev=2,
                                min_words=1, locale_root=locale, target="fr")
    assert rep["settings"]["pair"] == "de-fr" and rep["settings"]["pivot"] == "en"
    # 15 shared numbered messages and Quit; "Print the page" is untranslated on the German side
    assert rep["kept"]["gettext"] == 16 and rep["dropped"]["gettext"] == {"untranslated": 1}
    assert set(rep["provenance"]["gettext:fr"]) == {"tool.mo", "third.mo"}
    out = tmp_path / "out"
    de = [l for s in ("train", "dev", "test") for l in (out / f"{s}.de").read_text().splitlines()]
    fr_ = [l for s in ("train", "dev", "test") for l in (out / f"{s}.fr").read_text().splitlines()]
    assert ("Datei Nummer 4 nicht geöffnet", "Fichier numéro 4 non ouvert") in set(zip(de, fr_))
    assert ("Beenden", "Quitter") in set(zip(de, fr_)) and not (out / "train.en").exists()
    assert main(["data", "parallel", "--pair", "de-fr", "--sources", "gettext", "--locale-root",
                 str(locale), "--out", str(tmp_path / "cli"), "--n-test", "2", "--n-dev", "2",
                 "--min-words", "1"]) == 0
    assert (tmp_path / "cli" / "train.fr").read_text() == (out / "train.fr").read_text()
    for bad in ("de-de", "de-", "deu-french"):
        assert main(["data", "parallel", "--pair", bad, "--locale-root", str(locale),
                     "--out", str(tmp_path / "bad")]) == 2
    assert "SOURCE-TARGET" in capsys.readouterr().err and not (tmp_path / "bad").exists()
