"""One contract for every term: a term class registered in a test is scored, weighed, signed and
written into a scoring configuration by name with no other file changed (a word term class in
``score --words`` likewise); every term's values are
computed once per batch (and a term's source side once for all systems); a weight has one home."""
import json
from dataclasses import dataclass

import numpy as np
import pytest

from alignment.catalogue import FormerNameWarning
from alignment.errors import InputError
from alignment.signature import parse_signature
from alignment.terms import TERMS, Batch, Runtime, Setting, Term, WordBatch, WordTerm, get_term
from alignment.xmover.configuration import ScoringConfig
from alignment.xmover.scorer import XMoverScorer
from tests.conftest import EN, ES

CALLS: list[tuple[str, ...]] = []


@dataclass(frozen=True)
class OutputLength(Term):
    """A toy term class: the output's length in words, counted per call."""

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        CALLS.append(tuple(batch.outputs))
        return np.array([len(o.split()) for o in batch.outputs], dtype=np.float64)


@pytest.fixture
def length_term(registered_term):
    CALLS.clear()
    return registered_term(OutputLength("toy-words", "words", "--term toy-words=W", (0.0, 1.0),
                                        "the output's length in words", ident="toy-words-1"))


def test_every_term_is_registered_once_by_name_in_one_registry():
    assert list(TERMS)[:4] == ["xmover", "lm", "sentence", "consensus"]
    assert all(isinstance(t, Term) and t.name == n for n, t in TERMS.items())
    with pytest.warns(FormerNameWarning, match="'gemma-src' is now 'gemma-given-source'"):
        assert get_term("gemma-src").name == "gemma-given-source"  # a former name still works
    assert TERMS["xmover"].own_option and not TERMS["use"].own_option


def test_a_term_class_is_scored_weighed_and_signed_with_no_other_file_changed(tiny_bert,
                                                                              length_term):
    plain = XMoverScorer(str(tiny_bert), layer=2).score(ES[:4], EN[:4])
    scorer = XMoverScorer(str(tiny_bert), layer=2, weights={"toy-words": 0.5})
    result = scorer.score(ES[:4], EN[:4])
    words = np.array([len(e.split()) for e in EN[:4]], dtype=float)
    np.testing.assert_allclose(result.values["toy-words"], words)
    np.testing.assert_allclose(result.final, plain.final + 0.5 * words)
    assert parse_signature(result.signature)["terms"] == "toy-words:toy-words-1*0.5"
    config = ScoringConfig.of(scorer.setting)
    assert dict(config.identities) == {"toy-words": "toy-words-1"}
    assert config.as_dict()["weights"] == {"xmover": 1.0, "toy-words": 0.5}
    # the sentence term's option is always written: a map brings a weight of its own otherwise
    assert scorer.setting.flags() == "--sentence-weight 0 --term toy-words=0.5"
    assert scorer.setting.label("row") == "row ⊕ 0.5 words"


def test_each_term_computes_once_per_batch_and_its_source_side_once_for_all_systems(
        tiny_bert, length_term, monkeypatch):
    scorer = XMoverScorer(str(tiny_bert), layer=2, weights={"toy-words": 1.0, "sentence": 0.5})
    encoded: list[int] = []
    sentence_calls: list[int] = []
    encode, vectors = scorer.encoder.encode_tokens, scorer.sentence.vectors
    monkeypatch.setattr(scorer.encoder, "encode_tokens",
                        lambda s, *a, **k: encoded.append(len(s)) or encode(s, *a, **k))
    monkeypatch.setattr(scorer.sentence, "vectors",
                        lambda s, *a, **k: sentence_calls.append(len(s)) or vectors(s, *a, **k))
    systems = [EN[:3], EN[1:4], EN[2:5]]
    results = scorer.score_systems(ES[:3], systems)
    assert CALLS == [tuple(s) for s in systems]  # one call a system, never again
    assert encoded == [3] * 4 and sentence_calls == [3] * 4  # sources once, then each system
    alone = [XMoverScorer(str(tiny_bert), layer=2, weights={"toy-words": 1.0, "sentence": 0.5})
             .score(ES[:3], s) for s in systems]
    for together, apart in zip(results, alone):
        np.testing.assert_allclose(together.final, apart.final, atol=1e-12)


def test_a_weight_has_one_home(tiny_bert):
    from alignment.encoding.encoder import load_encoder
    from alignment.xmover.sentence_map import sentence_map_from_text

    enc = load_encoder(str(tiny_bert), layer=2)
    smap = sentence_map_from_text(enc, ES, EN, "orthogonal", "es", "en", layer=1, coef=0.5)
    given = XMoverScorer(str(tiny_bert), layer=2, sentence_map=smap, languages=("es", "en"))
    assert given.setting.weight("sentence") == 0.5  # a map given with no setting: its own
    zero = XMoverScorer(str(tiny_bert), layer=2, sentence_map=smap, languages=("es", "en"),
                        weights={"sentence": 0})
    assert zero.setting.active() == ["xmover"] and zero.sentence is None  # a weight given wins
    lm_default = XMoverScorer(str(tiny_bert), layer=2, formula="2020")
    assert lm_default.weights["lm"] == 0.1 and "lm" not in lm_default.setting.active()
    assert Setting.of(sentence=0).flags() == "--sentence-weight 0"


def test_a_scorer_is_a_setting_plus_a_runtime(tiny_bert, length_term):
    """The setting as an object (what an export's ``scoring.json`` holds) scores as the same
    setting given as options; how it runs (the runtime) changes no number."""
    config = ScoringConfig.of(Setting.of(**{"toy-words": 0.5}), formula="2020")
    as_object = XMoverScorer(str(tiny_bert), layer=2, setting=config,
                             runtime=Runtime.of(batch_size=2))
    as_options = XMoverScorer(str(tiny_bert), layer=2, setting="none", formula="2020",
                              weights={"toy-words": 0.5})
    got, want = as_object.score(ES[:4], EN[:4]), as_options.score(ES[:4], EN[:4])
    np.testing.assert_allclose(got.final, want.final, atol=1e-6)
    assert got.signature == want.signature and as_object.version == "2020"
    with pytest.raises(InputError, match="must be export or none"):
        XMoverScorer(str(tiny_bert), layer=2, setting="mine")


def test_evaluate_and_choose_compute_a_term_once_a_pair_and_scorer(tiny_bert, length_term):
    """``evaluate``'s rows and ``choose``'s candidates get a term's values through the same
    contract: once a pair for each row weighing it, once a pair for all of choose's grid."""
    from alignment.judgments.benchmark import Benchmark
    from alignment.judgments.benchmark_rows import score_benchmark
    from alignment.judgments.row_spec import EncoderRow
    from alignment.judgments.dev_scores import score_dev
    from alignment.judgments.segments import JudgedSegments

    data = JudgedSegments(["es-en"] * 4 + ["de-en"] * 4, ES[:8], EN[:8],
                          np.array([0, 3, 1, 2, 2, 0, 3, 1], dtype=float))
    bench = Benchmark("toy", "toy", lambda *a: data, ("es-en", "de-en"))
    rows = [EncoderRow("a", {"*": str(tiny_bert)}), EncoderRow("b", {"*": str(tiny_bert)})]
    options = {"layer": 2, "weights": {"toy-words": 0.5}}
    got = score_benchmark(bench, data, rows, options, with_baselines=False, resamples=2,
                          log=lambda m: None)
    assert len(CALLS) == 2  # one scorer a pair: both rows share it (the same encoder)
    assert got.rows[0].label == "a ⊕ 0.5 words"
    CALLS.clear()
    scores = score_dev(bench, data, rows, {"layer": 2}, None, False, lambda m: None,
                       ("toy-words",))
    assert len(CALLS) == 2  # the first candidate's scorer, once a pair; the grid reuses them
    np.testing.assert_allclose(scores.terms["toy-words"][:4], [len(e.split()) for e in EN[:4]])


@dataclass(frozen=True)
class WordLengths(WordTerm):
    """A toy word term: each output word's length in characters (the output side only)."""

    def values(self, batch: WordBatch, runtime: Runtime) -> list[dict[str, np.ndarray]]:
        return [{"hyp": np.array([len(w) for w in o.split()], dtype=float)}
                for o in batch.outputs]


def test_a_word_term_class_is_weighed_and_signed_by_score_words_with_no_other_file_changed(
        tmp_path, tiny_bert, capsys):
    from alignment.terms import WORD_TERMS, register_word_term
    from train.cli import main

    assert list(WORD_TERMS)[:3] == ["transport", "nearest", "surprisal"]
    src, hyp = tmp_path / "src.es", tmp_path / "hyp.en"
    src.write_text("".join(s + "\n" for s in ES[:3]))
    hyp.write_text("".join(h + "\n" for h in EN[:3]))
    common = ["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src), "--hyp",
              str(hyp), "--words", "--format", "json", "-q"]
    assert main([*common, "--word-weights", "nearest=1"]) == 0
    nearest = json.loads(capsys.readouterr().out)
    register_word_term(WordLengths("toy-letters", (0.0, 1.0), 0.0, "a word's letters"))
    try:
        assert main([*common, "--word-weights", "nearest=1,toy-letters=0.5"]) == 0
        toy = json.loads(capsys.readouterr().out)
    finally:
        WORD_TERMS.remove("toy-letters")
    for plain, with_toy, line in zip(nearest["words"], toy["words"], EN[:3]):
        letters = np.array([len(w) for w in line.split()], dtype=float)
        np.testing.assert_allclose(with_toy["hyp_scores"],
                                   np.array(plain["hyp_scores"]) + 0.5 * letters, atol=2e-6)
        assert with_toy["src_scores"] == plain["src_scores"]  # it scores no source word
    assert toy["word_signature"].endswith("|words:nearest=1,toy-letters=0.5@max")
