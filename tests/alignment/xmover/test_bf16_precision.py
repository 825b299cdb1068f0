"""``--precision bf16``: the encoder, the LM and every contextual term compute in bfloat16, the
scores stay close to fp32's, and the signature says so; a term that cannot follow the
precision is signed ``@fp32``; a CPU without native bf16 warns that it emulates it."""
import warnings
from dataclasses import replace

import numpy as np
import pytest
import torch

from alignment.terms.gemma_given_source import SourceConditionedLM
from alignment.terms.source_lm import shared_lm
from alignment.encoding.precision import EmulatedPrecision, cpu_has_bf16
from alignment.signature import parse_signature
from alignment.xmover import XMoverScorer
from alignment.terms import TERMS, Runtime, Term, TermContext, register_term
from tests.conftest import EN, ES


@pytest.fixture(autouse=True)
def _emulation_is_said_not_fatal():
    """Where this CPU emulates bf16 the warning is expected (and checked once below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmulatedPrecision)
        yield


def test_bf16_scores_are_close_to_fp32_and_signed(tiny_bert, tiny_gpt2):
    fp32 = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2), setting="none")
    bf16 = XMoverScorer(str(tiny_bert), layer=2, lm=str(tiny_gpt2),
                        setting="none", runtime=Runtime.of(precision="bf16"))
    fields = parse_signature(bf16.signature)
    assert fields["prec"] == "bf16" and fields["lm"].endswith("+bf16")
    assert "prec" not in parse_signature(fp32.signature)
    assert next(bf16.encoder.model.parameters()).dtype == torch.bfloat16
    assert next(fp32.encoder.model.parameters()).dtype == torch.float32  # not converted in place
    assert next(bf16.lm.model.parameters()).dtype == torch.bfloat16
    a, b = fp32.score(ES, EN), bf16.score(ES, EN)
    assert not np.array_equal(a.final, b.final)
    np.testing.assert_allclose(b.xmover, a.xmover, atol=0.02)
    np.testing.assert_allclose(b.lm, a.lm, atol=0.1)


def test_a_contextual_term_runs_in_the_scorers_precision_and_others_are_signed_fp32(tiny_bert):
    seen = []

    def contextual(sources, hypotheses, languages, context):
        seen.append(context)
        return np.array([len(h) for h in hypotheses], dtype=float)

    register_term(Term("toy-ctx", "toy ctx", "--term toy-ctx=W", (0.0, 1.0), "length",
                       ident="toy-ctx-1", compute=contextual, contextual=True))
    register_term(Term("toy-plain", "toy plain", "--term toy-plain=W", (0.0, 1.0), "length",
                       ident="toy-plain-1", compute=lambda s, h, l: np.zeros(len(h))))
    try:
        scorer = XMoverScorer(str(tiny_bert), layer=2,
                              weights={"toy-ctx": 1.0, "toy-plain": 1.0},
                                  runtime=Runtime.of(precision="bf16"))
        scorer.score(ES, EN)
        assert [(c.device, c.precision) for c in seen] == [("cpu", "bf16")]
        terms_field = parse_signature(scorer.signature)["terms"]
        assert "toy-ctx:toy-ctx-1*1" in terms_field and "toy-plain:toy-plain-1@fp32*1" in terms_field
        fp32 = XMoverScorer(str(tiny_bert), layer=2, weights={"toy-plain": 1.0})
        assert "toy-plain:toy-plain-1*1" in parse_signature(fp32.signature)["terms"]
    finally:
        TERMS.remove("toy-ctx")
        TERMS.remove("toy-plain")


def test_the_gemma_terms_load_their_lm_in_the_precision_they_are_given(tiny_gpt2, monkeypatch,
                                                                       tmp_path):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path))
    term, one = SourceConditionedLM(str(tiny_gpt2)), Runtime("cpu", "fp32")
    fp32 = term(["the cat"], ["the dog"], ("en", "de"), one)
    as_bf16 = replace(one, precision="bf16")  # the same cache, another precision
    bf16 = term(["the cat"], ["the dog"], ("en", "de"), as_bf16)
    lm = shared_lm(str(tiny_gpt2), as_bf16)
    assert lm is not shared_lm(str(tiny_gpt2), one) and lm.weights_ident.endswith("+bf16")
    assert next(lm.model.parameters()).dtype == torch.bfloat16
    assert fp32[0] != bf16[0] and abs(fp32[0] - bf16[0]) < 0.1  # kept apart in the reuse cache


def test_a_cpu_without_native_bf16_is_warned_once():
    from alignment.encoding import precision

    precision._WARNED.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        precision.check_precision("bf16", torch.device("cpu"))
        precision.check_precision("bf16", torch.device("cpu"))
    emulated = [w for w in caught if issubclass(w.category, EmulatedPrecision)]
    assert len(emulated) == (0 if cpu_has_bf16() else 1)
