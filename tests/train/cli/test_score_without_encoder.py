"""``score`` with no ``--encoder`` scores with the export for ``--src-lang``-``--tgt-lang``
whose card measured best, and says so (as ``exports --pair`` does); a pair no export covers is refused naming the pairs
covered, and without the languages it is refused (nothing guessed), both before any model
loads."""
from __future__ import annotations

import json

import pytest

from alignment.errors import InputError
from alignment.export import named
from alignment.export.named import ExportEntry, export_for_pair
from train.cli import main
from tests.conftest import EN, ES


def _files(tmp_path):
    src, hyp = tmp_path / "test.es", tmp_path / "mt.en"
    src.write_text("\n".join(ES[:3]) + "\n")
    hyp.write_text("\n".join(EN[:3]) + "\n")
    return ["--src", str(src), "--hyp", str(hyp)]


def test_the_pairs_export_scores_and_the_note_names_it(tmp_path, capsys):
    files = _files(tmp_path)
    assert main(["score", *files, "--src-lang", "es", "--tgt-lang", "en", "--format",
                 "json"]) == 0
    out = capsys.readouterr()
    assert "scoring with bible/es-en, the export for es-en" in out.err
    assert main(["score", *files, "--encoder", "bible/es-en", "--format", "json", "-q"]) == 0
    named_one = json.loads(capsys.readouterr().out)
    assert json.loads(out.out) == named_one  # the same scores and signature as naming it
    assert main(["exports", "--pair", "es-en"]) == 0  # the listing says which one it is
    assert "measured best for es-en (what `score --src-lang es --tgt-lang en` uses with no " \
        "--encoder): bible/es-en" in capsys.readouterr().out


@pytest.mark.parametrize("languages, message", [
    (["--src-lang", "fr", "--tgt-lang", "en"], "no export scores fr-en (the exports cover "),
    ([], "give --encoder, or --src-lang and --tgt-lang"),
])
def test_a_pair_without_an_export_or_without_languages_is_refused(tmp_path, capsys, languages,
                                                                  message):
    assert main(["score", *_files(tmp_path), *languages]) == 2
    err = capsys.readouterr().err
    assert message in err and "parameter 'encoder'" in err
    if languages:
        assert "es-en" in err and "de-en" in err


def _entry(name: str, pair: str, pearson: float | None) -> ExportEntry:
    return ExportEntry(name, "shipped", name, pair, "enc", 8, "identity",
                       None if pearson is None else f"{pearson:.3f}", None, "sig", pearson)


def test_the_highest_measured_card_wins_and_a_measured_one_beats_an_unmeasured_one(
        monkeypatch):
    entries = [_entry("a/ru-en", "ru-en", 0.48), _entry("b/ru-en", "ru-en", 0.53),
               _entry("c/ru-en", "ru-en", None), _entry("d/de-en", "de-en", 0.9)]
    monkeypatch.setattr(named, "list_exports", lambda: entries)
    assert export_for_pair("ru-en").name == "b/ru-en"
    monkeypatch.setattr(named, "list_exports", lambda: entries[2:])
    assert export_for_pair("ru-en").name == "c/ru-en"
    with pytest.raises(InputError, match="cover de-en, ru-en"):
        export_for_pair("fr-en")
