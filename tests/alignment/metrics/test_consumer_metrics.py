"""MoverScore and BaryScore over a real encoder and a real export: both forms (against the
reference; reference-free against the source, the export's map applied), each preprocessing
choice in the signature, and bad options refused naming them."""
from __future__ import annotations

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.metrics import BaryScore, MoverScore, Preprocessing, Stopwords
from tests.conftest import EN, ES


@pytest.mark.parametrize("make", [lambda e: MoverScore(e, "v1", ngram=2, layers=[-2, -1]),
                                  lambda e: MoverScore(e, "v2"),
                                  lambda e: BaryScore(e, last_layers=2)],
                         ids=["moverscore-v1", "moverscore-v2", "baryscore"])
def test_both_forms_score_every_pair_and_say_which_they_are(tiny_bert, make):
    metric = make(str(tiny_bert))
    with_ref = metric.score(EN[:4], references=EN[1:5])
    free = metric.score(EN[:4], sources=ES[:4])
    for result in (with_ref, free):
        assert result.scores.shape == (4,) and np.isfinite(result.scores).all()
    assert with_ref.signature.endswith("|form:ref") and free.signature.endswith("|form:src")
    assert "|map:none|" in free.signature


def test_an_output_equal_to_its_reference_scores_best(tiny_bert):
    none = Preprocessing(idf="none")
    v2 = MoverScore(str(tiny_bert), "v2", preprocessing=none).score(EN[:3], references=EN[:3])
    other = MoverScore(str(tiny_bert), "v2", preprocessing=none).score(EN[:3],
                                                                       references=EN[3:6])
    assert (v2.scores > 0.999).all() and (v2.scores > other.scores).all()
    bary = BaryScore(str(tiny_bert), last_layers=2).score(EN[:3], references=EN[:3])
    np.testing.assert_allclose(bary.values["W"], 0.0, atol=1e-9)


def test_an_export_maps_the_source_side_at_its_own_layer(tmp_path, tiny_bert):
    from tests.alignment.test_export import _export

    _export(tmp_path, tiny_bert, "clp")
    mapped = MoverScore(tmp_path / "exp", "v2").score(EN[:4], sources=ES[:4])
    assert "|map:none|" not in mapped.signature
    plain = MoverScore(str(tiny_bert), "v2", layers=[int(mapped.signature.split("|L:")[1]
                                                         .split("|")[0])])
    assert not np.allclose(mapped.scores, plain.score(EN[:4], sources=ES[:4]).scores)
    # against a reference both sides are the output's language: no map, the plain scores
    np.testing.assert_allclose(MoverScore(tmp_path / "exp", "v2").score(
        EN[:4], references=EN[1:5]).scores, plain.score(EN[:4], references=EN[1:5]).scores)


def test_every_preprocessing_choice_changes_the_signature(tiny_bert, tmp_path):
    words = tmp_path / "stop.txt"
    words.write_text("the of\nand", encoding="utf-8")
    stop = Stopwords.from_file(words)
    base = Preprocessing()
    variants = [base, base.with_options(subwords="first"), base.with_options(punctuation=True),
                base.with_options(stopwords=stop), base.with_options(idf="corpus"),
                base.with_options(lowercase=True),
                base.with_options(stopwords=Stopwords("stop", frozenset({"the"})))]
    signatures = {MoverScore(str(tiny_bert), "v2", preprocessing=p).signature("ref")
                  for p in variants}
    assert len(signatures) == len(variants)
    assert f"stop:stop#{stop.digest}" in MoverScore(
        str(tiny_bert), "v2", preprocessing=variants[3]).signature("ref")
    assert MoverScore(str(tiny_bert), "v1", ngram=1, layers=[-1]).signature("ref") != \
        MoverScore(str(tiny_bert), "v1", ngram=2, layers=[-1]).signature("ref")


def test_removed_tokens_change_the_scores(tiny_bert, tmp_path):
    sentences = ["the cat , the dog .", "a house of the city ."]
    kept = MoverScore(str(tiny_bert), "v2", preprocessing=Preprocessing(idf="none"))
    dropped = MoverScore(str(tiny_bert), "v2", preprocessing=Preprocessing(
        idf="none", punctuation=True, stopwords=Stopwords("the", frozenset({"the"}))))
    a = kept.score(sentences, references=sentences[::-1]).scores
    b = dropped.score(sentences, references=sentences[::-1]).scores
    assert not np.allclose(a, b)


def test_bad_options_are_refused_naming_them(tiny_bert, tmp_path):
    with pytest.raises(InputError, match="subwords"):
        Preprocessing(subwords="last")
    with pytest.raises(InputError, match="idf"):
        Preprocessing(idf="sometimes")
    with pytest.raises(InputError, match="version"):
        MoverScore(str(tiny_bert), "v3")
    with pytest.raises(InputError, match="ngram"):
        MoverScore(str(tiny_bert), "v2", ngram=2)
    with pytest.raises(InputError, match="layers"):
        BaryScore(str(tiny_bert), last_layers=9)
    with pytest.raises(InputError, match="preprocessing"):
        MoverScore(str(tiny_bert), "v2", preprocessing="moverscore-v9")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty.txt"):
        Stopwords.from_file(empty)
    metric = MoverScore(str(tiny_bert), "v2")
    with pytest.raises(InputError, match="references"):
        metric.score(EN[:2], references=EN[:2], sources=ES[:2])
    with pytest.raises(InputError):
        metric.score(EN[:2], references=EN[:3])


def test_stopwords_and_punctuation_match_sentencepiece_tokens_without_their_word_marker(tmp_path):
    (tmp_path / "stop.txt").write_text("the of\n", encoding="utf-8")
    prep = Preprocessing(subwords="first", punctuation=True,
                         stopwords=Stopwords.from_file(tmp_path / "stop.txt"))
    tokens = ["<s>", "▁the", "▁cat", "s", "▁of", "▁theory", "▁.", "</s>"]
    special = [True, False, False, False, False, False, False, True]
    assert prep.keep(tokens, special, sentencepiece=True) == [
        True, False, True, False, False, True, False, True]
    # WordPiece: the same words, the same choices
    assert prep.keep(["[CLS]", "the", "cat", "##s", "of", ".", "[SEP]"],
                     [True, False, False, False, False, False, True], sentencepiece=False) == [
        True, False, True, False, False, False, True]
