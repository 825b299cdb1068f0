import pytest

from alignment.data.tokenize import Tokenizer


def test_punctuation_is_split_and_words_keep_accents():
    assert Tokenizer()("¡Oh Jehová, cuánto!") == ["¡", "Oh", "Jehová", ",", "cuánto", "!"]


def test_inner_apostrophes_and_hyphens_stay_in_the_word():
    assert Tokenizer()("God’s well-known word's") == ["God’s", "well-known", "word's"]


def test_lowercase_option_and_nfc():
    decomposed = "cancio\u0301n"  # n + combining acute
    assert Tokenizer(lowercase=True)("Canción " + decomposed) == ["canción", "canción"]
    assert Tokenizer().settings() != Tokenizer(lowercase=True).settings()


def test_chinese_runs_are_segmented_into_words_and_the_name_says_so():
    from alignment.data.tokenize import Tokenizer, segmenter_for

    plain, seg = Tokenizer(), Tokenizer(segment="jieba")
    sentence = "巴黎是法国的首都，Paris is big."
    assert plain(sentence)[0] == "巴黎是法国的首都"  # a whole clause, as one word
    words = seg(sentence)
    assert words[:5] == ["巴黎", "是", "法国", "的", "首都"] and words[5:] == plain(sentence)[1:]
    assert "".join(words[:5]) == plain(sentence)[0]  # nothing lost or added
    assert seg("the house is big .") == plain("the house is big .")
    assert seg.settings()["tokenizer"] == "crossalign-word-v2+jieba"
    assert plain.settings() == {"tokenizer": "crossalign-word-v2", "lowercase": False}
    assert Tokenizer.from_settings(seg.settings()) == seg
    assert Tokenizer.from_settings(plain.settings()) == plain
    assert segmenter_for("auto", "zh", "en") == "jieba" and segmenter_for("auto", "de", "en") is None
    assert segmenter_for("none", "zh", "en") is None


def test_an_unknown_segmenter_is_refused_by_name():
    from alignment.data.tokenize import Tokenizer
    from alignment.errors import InputError

    with pytest.raises(InputError, match="unknown word segmenter 'mecab'"):
        Tokenizer(segment="mecab")


def test_vowel_signs_and_viramas_stay_inside_their_words_for_brahmic_scripts():
    from alignment.data.tokenize import segmenter_for

    marks = Tokenizer(segment="marks")
    nepali = "नेपाल एक सुन्दर देश हो ।"
    assert marks(nepali) == ["नेपाल", "एक", "सुन्दर", "देश", "हो", "।"]
    assert len(Tokenizer()(nepali)) > 2 * len(marks(nepali))  # v2 cuts at every vowel sign
    assert marks("ලංකාව ලස්සන රටකි") == ["ලංකාව", "ලස්සන", "රටකි"]
    latin = "Hyvää päivää, don't e-mail _x ."
    assert marks(latin) == Tokenizer()(latin)  # text without marks is split as before
    assert marks.settings()["tokenizer"] == "crossalign-word-v2+marks"
    assert segmenter_for("auto", "ne", "en") == "marks" == segmenter_for("auto", "en", "si")
