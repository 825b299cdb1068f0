"""Reading MT output as written: a tokeniser's marks are undone, a lowercased output is
re-cased from its source, and natural text is never touched."""
import pytest

from alignment.errors import InputError
from alignment.xmover.written import as_written, describe, is_tokenised, read_outputs


def test_a_moses_tokenised_lowercased_output_reads_as_written():
    src = "Im geräucherten Lachs von Albert war ein gefährlicher Parasit."
    mt = "there was a dangerous parasite in albert &apos;s smoked salmon ."
    assert as_written(mt, src) == "There was a dangerous parasite in Albert's smoked salmon."


@pytest.mark.parametrize("given, written", [
    ("i don &apos;t think it &apos;s over , he said .", "I don't think it's over, he said."),
    ("she said : &quot; we will win &quot; .", 'She said: "we will win".'),
    ("a 10 @-@ year plan ( for now ) costs $ 5 .", "A 10-year plan (for now) costs $5."),
    ("prices rose 5 % . then they fell !", "Prices rose 5%. Then they fell!"),
    ("he does n&apos;t know .", "He doesn't know."),
])
def test_each_tokeniser_mark_is_undone(given, written):
    assert as_written(given) == written


@pytest.mark.parametrize("text", [
    "The differences in energy and climate policy are clearer.",
    "Vraiment ? Il a dit : oui !",  # French spacing is natural text, not a tokeniser's
    "2013 年 12 月",
    "",
])
def test_natural_text_is_returned_unchanged(text):
    assert not is_tokenised(text) and as_written(text, "Quelle Source") == text


def test_a_cased_tokenised_output_keeps_its_case():
    assert as_written("Shell cut wages in BG Group , not here .") == \
        "Shell cut wages in BG Group, not here."


def test_only_the_outputs_are_read_and_the_reading_is_signed():
    src, mt = ["Ein Satz , aus Wikipedia ."], ["a sentence , from wikipedia ."]
    assert read_outputs("given", src, mt) == mt
    assert read_outputs("written", src, mt) == ["A sentence, from Wikipedia."]
    assert describe("given") is None and describe("written").startswith("written:")
    with pytest.raises(InputError, match="given, written"):
        read_outputs("detok", src, mt)


def test_the_english_pronoun_is_recased_in_english_only():
    assert as_written("i think i know .", language="en") == "I think I know."
    assert as_written("i gatti , i cani .", language="it") == "I gatti, i cani."  # articles


def test_segments_of_several_pairs_are_read_in_their_target_language():
    from alignment.xmover.written import read_segments

    got = read_segments("written", ["de-en", "en-it"], ["Ich weiß.", "I know."],
                        ["i know .", "i gatti , i cani ."])
    assert got == ["I know.", "I gatti, i cani."]
    assert read_segments("given", ["de-en"], ["x"], ["i know ."]) == ["i know ."]


def test_an_unknown_reading_is_refused_for_segments_too():
    from alignment.xmover.written import read_segments

    with pytest.raises(InputError, match="given, written"):
        read_segments("detok", ["de-en"], ["x"], ["i know ."])
