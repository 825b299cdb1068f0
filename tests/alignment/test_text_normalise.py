"""TEXT for Spanish with Apertium's real analyser and tagger (``apertium-eng-spa``)."""
import pytest

from alignment.errors import InputError
from alignment.encoding.text_normalise import SpanishTextNormaliser, parse_stream, normalise_units


def test_contractions_split_and_adjectives_moved_before_nouns():
    norm = SpanishTextNormaliser()
    out = norm(["La casa blanca del hombre rico está al lado del río.",
                "Los perros negros comieron pan.", "Del cielo vino la luz."])
    assert out[0] == "La blanca casa de el rico hombre está a el lado de el río."
    assert out[1] == "Los negros perros comieron pan."
    assert out[2].startswith("De el cielo")


def test_one_line_per_sentence_with_stream_characters_in_the_text():
    norm = SpanishTextNormaliser()
    sents = ["Él dijo: «Ve al río [y] del monte» a/b 3$ ^x @y {z} <w>.", "sin punto final",
             "¿Qué es esto?", "a\\b"]
    out = norm(sents)
    assert len(out) == 4
    assert out[0] == "Él dijo: «Ve a el río [y] de el monte» a/b 3$ ^x @y {z} <w>."
    assert out[1:] == ["sin punto final", "¿Qué es esto?", "a\\b"]


def test_rules_can_be_chosen_and_are_in_the_settings():
    only = SpanishTextNormaliser(rules=("contractions",))
    assert only(["La casa blanca del rey."]) == ["La casa blanca de el rey."]
    settings = only.settings()
    assert settings["rules"] == ["contractions"] and settings["tagger"].startswith("apertium-spa#")
    assert "contractions" in only.describe() and settings["tagger"] in only.describe()
    with pytest.raises(InputError, match="unknown TEXT rule"):
        SpanishTextNormaliser(rules=("verb-object",))


def test_missing_tagger_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="apt-get install apertium-eng-spa"):
        SpanishTextNormaliser(data_dir=str(tmp_path))(["hola"])


def test_stream_parser_reads_escapes_and_unknown_words():
    units, tail = parse_stream(r"^a\/b/*a\/b$ ^casa/casa<n><f><sg>$^./.<sent>$")
    assert [u.surface for u in units] == ["a/b", "casa", "."]
    assert units[0].parts == () and units[1].pos == "n"
    assert normalise_units(units, tail) == "a/b casa."
