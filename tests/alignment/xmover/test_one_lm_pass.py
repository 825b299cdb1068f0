"""One LM pass per source and output: the prompt that reads the output also answers the
source's own log-probability (its tokens begin the prompt), a text asked for twice (a term's
mean and total) is read once, and the values equal separate passes'; ``score --timings`` says
where the time went."""
from __future__ import annotations

import numpy as np
import pytest

from alignment.terms import Runtime
from alignment.terms.gemma_given_source import SourceConditionedLM, SourcePredictability
from alignment.terms.source_lm import PROMPT, shared_lm
from alignment.xmover import lm_given

SOURCES = ["the cat sees a dog .", "a woman reads the book", "the dog eats bread ."]
OUTPUTS = ["the dog sees a cat .", "the woman reads a book .", "bread ."]


@pytest.fixture
def rt():
    """One runtime for the terms of a test (their LM is its), nothing kept on disk."""
    return Runtime.of("cpu", "fp32", keep_values=False)


@pytest.fixture
def passes(monkeypatch):
    """Counts the LM forward passes (batches through the layers)."""
    count = []
    real = lm_given.span_log_likelihoods

    def counted(*args, **kwargs):
        count.append(len(args[2]))
        return real(*args, **kwargs)

    monkeypatch.setattr(lm_given, "span_log_likelihoods", counted)
    return count


def test_the_source_alone_is_answered_from_the_pass_that_reads_the_output(tiny_gpt2, passes, rt):
    given = SourceConditionedLM(str(tiny_gpt2))
    alone = SourcePredictability(str(tiny_gpt2))
    lm = shared_lm(str(tiny_gpt2), rt)
    lm.batch_size = 16
    g = given(SOURCES, OUTPUTS, ("en", "de"), rt)
    a = alone(SOURCES, OUTPUTS, ("en", "de"), rt)
    assert len(passes) == 1  # one batch through the LM for both terms
    lm.known.clear()
    np.testing.assert_allclose(alone(SOURCES, OUTPUTS, ("en", "de"), rt), a, rtol=0, atol=1e-6)
    lm.known.clear()
    np.testing.assert_allclose(given(SOURCES, OUTPUTS, ("en", "de"), rt), g, rtol=0, atol=1e-6)
    assert len(passes) == 3  # each alone, when nothing was read before


def test_a_source_whose_tokens_do_not_begin_the_prompt_gets_its_own_pass(tiny_gpt2, passes, rt):
    given = SourceConditionedLM(str(tiny_gpt2), prompt="Translate {source_language}: "
                                      "{source}\n{target_language}:")  # another wording
    alone = SourcePredictability(str(tiny_gpt2))
    given(SOURCES, OUTPUTS, ("en", "de"), rt)
    alone(SOURCES, OUTPUTS, ("en", "de"), rt)
    assert len(passes) == 2


def test_a_terms_mean_and_total_are_one_pass(tiny_gpt2, passes, rt):
    mean = SourceConditionedLM(str(tiny_gpt2))(SOURCES, OUTPUTS, ("en", "de"), rt)
    total = SourceConditionedLM(str(tiny_gpt2), total=True)(SOURCES, OUTPUTS, ("en", "de"), rt)
    assert len(passes) == 1
    lm = shared_lm(str(tiny_gpt2), rt)
    np.testing.assert_allclose(total, mean * lm.scored_tokens(
        [PROMPT.format(source_language="English", source=s, target_language="German")
         for s in SOURCES], [" " + o for o in OUTPUTS]), rtol=1e-12)
    assert {"tokenising", "layers", "output layer"} <= set(lm.seconds)


def test_score_timings_names_the_stages_and_the_whole(tmp_path, tiny_bert, tiny_gpt2, capsys):
    from train.cli import main

    src, hyp = tmp_path / "s.en", tmp_path / "h.de"
    src.write_text("".join(s + "\n" for s in SOURCES))
    hyp.write_text("".join(o + "\n" for o in OUTPUTS))
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                 "--hyp", str(hyp), "--lm", str(tiny_gpt2), "--sentence-weight", "0.5",
                 "--timings"]) == 0
    err = capsys.readouterr().err
    for stage in ("sources", "hypotheses", "transport", "lm", "sentence", "whole command",
                  "not in a stage"):
        assert stage in err, err
