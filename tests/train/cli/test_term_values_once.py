"""Every term's values are computed once per batch, whichever verb asks for them: ``score``
(once a system, the consensus included), ``evaluate`` (rows that share a term on the same text —
settings of one export, their ⊕ LM, ⊕ consensus and alone rows — once a pair) and ``choose``
(once a pair for the whole grid and every candidate on one encoder)."""
import json
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from alignment.terms import TERMS, Batch, Runtime, Term
from train.cli import main

COMPUTED: Counter = Counter()  # (term, the batch's first output, its size) -> computations


@dataclass(frozen=True)
class OutputLength(Term):
    """A toy term: the output's length in words."""

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        return np.array([len(o.split()) for o in batch.outputs], dtype=np.float64)


@pytest.fixture
def counted(registered_term, monkeypatch):
    """Every term class's ``values`` counted by term and batch (the toy term registered)."""
    registered_term(OutputLength("toy-words", "words", "--term toy-words=W", (0.0, 1.0),
                                 "the output's length in words", ident="toy-words-1"))
    COMPUTED.clear()
    for cls in {type(t) for t in TERMS.values()}:
        def counting(self, batch, runtime, _values=cls.values):
            COMPUTED[(self.name, batch.outputs[0], len(batch.outputs))] += 1
            return _values(self, batch, runtime)

        monkeypatch.setattr(cls, "values", counting)
    return COMPUTED


def by_term(counts: Counter) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for (name, _, _), n in sorted(counts.items()):
        out.setdefault(name, []).append(n)
    return out


@pytest.mark.filterwarnings("ignore:.*subword pieces", "ignore:.*longer than the LM's context")
def test_score_computes_each_term_once_a_system(tmp_path, tiny_bert, tiny_gpt2, counted, capsys):
    src = tmp_path / "src.de"
    src.write_text("ein Haus\nzwei Katzen\ndrei Hunde schlafen\n")
    hyps = []
    for k, lines in enumerate(["a house\ntwo cats\nthree dogs sleep\n",
                               "one house\ntwo cat\ndogs sleep\n",
                               "the house\ncats two\nthree dogs are sleeping\n"]):
        hyps.append(tmp_path / f"mt{k}.en")
        hyps[-1].write_text(lines)
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                 "--hyp", *map(str, hyps), "--consensus", "--lm", str(tiny_gpt2),
                 "--sentence-weight", "0.3", "--term", "toy-words=0.5", "--format", "json",
                 "-q"]) == 0
    capsys.readouterr()
    assert by_term(counted) == {n: [1, 1, 1] for n in
                                ("consensus", "lm", "sentence", "toy-words", "xmover")}


@pytest.mark.filterwarnings("ignore:.*subword pieces", "ignore:.*longer than the LM's context")
def test_evaluate_computes_each_term_once_a_pair_for_every_row(wmt17_data, tiny_bert, tiny_gpt2,
                                                               counted, capsys):
    """Two settings of one encoder as rows, each with its ⊕ LM and ⊕ consensus rows, the LM,
    the sentence term and the consensus alone: thirteen rows, each term computed once a pair."""
    assert main(["evaluate", "wmt17", "--data", str(wmt17_data), "--layer", "1",
                 "--row", f"a={tiny_bert}:none", "--row", f"b={tiny_bert}:none,toy-words=0.5",
                 "--sentence-weight", "0.3", "--lm", str(tiny_gpt2), "--consensus",
                 "--bootstrap", "20", "--no-baselines", "--format", "json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["rows"]) == 13, [r["label"] for r in doc["rows"]]
    assert len(doc["pairs"]) == 2
    assert by_term(counted) == {n: [1, 1] for n in
                                ("consensus", "lm", "sentence", "toy-words", "xmover")}


def test_choose_computes_each_term_once_a_pair_for_the_grid(tiny_bert, tiny_gpt2, counted):
    from alignment.judgments.benchmark import Benchmark
    from alignment.judgments.dev_scores import score_dev
    from alignment.judgments.row_spec import EncoderRow
    from alignment.judgments.segments import JudgedSegments
    from tests.conftest import EN, ES

    data = JudgedSegments(["es-en"] * 4 + ["de-en"] * 4, ES[:8], EN[:8],
                          np.array([0, 3, 1, 2, 2, 0, 3, 1], dtype=float))
    bench = Benchmark("toy", "toy", lambda *a: data, ("es-en", "de-en"))
    rows = [EncoderRow("a", {"*": str(tiny_bert)}), EncoderRow("b", {"*": str(tiny_bert)})]
    score_dev(bench, data, rows, {"layer": 2}, str(tiny_gpt2), True, lambda m: None,
              ("toy-words",))
    assert by_term(counted) == {n: [1, 1] for n in ("lm", "sentence", "toy-words", "xmover")}
