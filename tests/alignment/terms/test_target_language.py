"""The ``target-language`` term: an output that copies its source or falls into another
language scores low, a translation scores 1 — what every similarity term gets backwards on
Eval4NLP's de-zh, where the worst outputs are German copied into the Chinese side."""
from __future__ import annotations

import json

import numpy as np
import pytest

from alignment.terms.target_language import TargetLanguageShare, target_share, words
from train.cli import main


def test_words_split_scripts_and_take_each_chinese_character_alone():
    assert words("在埃尔CNN采访, Die Türkei 2013") == ["在", "埃", "尔", "cnn", "采", "访", "die",
                                                  "türkei"]
    assert words("Москва-Berlin") == ["москва", "berlin"]
    assert words("2013 – 45, 7.") == []


def test_a_copy_of_the_source_scores_zero_and_a_translation_one():
    source = "Die Türkei 2013 – Ein Land in Proteststimmung."
    assert target_share(source, "G ö kcan: Die T ü rkei 2013 – Ein Land in Proteststimmung。",
                        "zh") == 0.0
    assert target_share(source, "2013年的土耳其：一个处于抗议情绪中的国家。", "zh") == 1.0
    # a name kept in Latin letters costs its share of the output's words, no more
    assert target_share("Interview durch CNN", "接受CNN采访", "zh") == pytest.approx(4 / 5)


def test_another_languages_function_words_count_against_the_target():
    source = "Одним из самых мощных центров сопротивления"
    german = "Eines der stärksten Zentren des Widerstands"
    mixed = "Eines der stärksten centers of the resistance"
    assert target_share(source, german, "de") == 1.0
    assert target_share(source, mixed, "de") == pytest.approx(1 - 2 / 7)  # of, the
    # where the target has no word list, only copying and script count
    assert target_share("Hello world", "Sveika pasaule of", "lv") == 1.0


def test_a_target_function_word_shared_with_the_source_is_not_a_copy():
    assert target_share("The house in Berlin", "Das Haus in Berlin", "de") == pytest.approx(3 / 4)
    # Chinese characters shared by a Japanese source are not copies
    assert target_share("東京大学で勉強する", "在东京大学学习", "zh") == 1.0


def test_an_output_with_nothing_to_translate_is_on_target():
    assert target_share("1990 – 2000", "1990 – 2000", "de") == 1.0
    values = TargetLanguageShare()(["Haus", "Haus"], ["房子", "Haus"], ("de", "zh"))
    assert values.tolist() == [1.0, 0.0] and values.dtype == np.float64


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_the_term_ranks_an_untranslated_output_last_through_score(tmp_path, tiny_bert, capsys):
    src, hyp = tmp_path / "src.de", tmp_path / "hyp.zh"
    src.write_text("ein Haus im Garten\nder lange Tag\n")
    hyp.write_text("花园里的房子\nder lange Tag\n")
    common = ["score", "--encoder", str(tiny_bert), "--layer", "1", "--src", str(src), "--hyp",
              str(hyp), "--src-lang", "de", "--tgt-lang", "zh", "--format", "json", "-q"]
    assert main(common) == 0
    plain = np.array(json.loads(capsys.readouterr().out)["segments"])
    assert main([*common, "--term", "target-language=1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert np.array(out["segments"]) == pytest.approx(plain + np.array([1.0, 0.0]))
    assert "terms:target-language:target-share+words1*1" in out["signature"]
