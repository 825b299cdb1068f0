"""Scoring a benchmark's rows: rows named per pair, one encoding shared by rows on one encoder,
and one signature line per row."""
import numpy as np
import pytest

from alignment.errors import InputError
from alignment.judgments.benchmark_rows import joint_signature
from alignment.judgments.row_spec import parse_row
from alignment.terms import Runtime
from tests.conftest import EN, ES


def test_rows_name_one_export_for_every_pair_or_one_a_pair(tmp_path):
    assert parse_row("enc", ["de-en"]).encoder_for("de-en") == "enc"
    row = parse_row("de-en=a,lv-en=b", ["de-en", "lv-en"])
    assert (row.encoder_for("de-en"), row.encoder_for("lv-en")) == ("a", "b")
    with pytest.raises(InputError, match="names no export for pair cs-en"):
        row.encoder_for("cs-en")
    with pytest.raises(InputError, match="'de-en' is not PAIR=EXPORT"):
        parse_row("de-en,x=y", ["de-en"])
    (tmp_path / "exports" / "de-en").mkdir(parents=True)
    folder = parse_row(str(tmp_path / "exports"), ["de-en", "lv-en"], label="maps")
    assert folder.label == "maps" and folder.by_pair == {"de-en": str(tmp_path / "exports" / "de-en")}
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="neither an export"):
        parse_row(str(tmp_path / "empty"), ["de-en"])


def test_a_rows_signatures_join_their_pairs():
    sigs = {"xmoverscore|L:8|map:none|lang:de-en", "xmoverscore|L:8|map:none|lang:cs-en"}
    assert joint_signature(sigs) == "xmoverscore|L:8|map:none|lang:cs-en,de-en"
    mixed = {"xmoverscore|map:a|lang:de-en", "xmoverscore|map:b|lang:cs-en"}
    assert joint_signature(mixed) == "xmoverscore|map:a|lang:de-en ; xmoverscore|map:b|lang:cs-en"
    after = {f"xmoverscore|L:8|lang:{p} ⊕ consensus:chrF|combine:z" for p in ("de-en", "cs-en")}
    assert joint_signature(after) == "xmoverscore|L:8|lang:cs-en,de-en ⊕ consensus:chrF|combine:z"


def test_rows_on_one_encoder_encode_each_sentence_list_once(tiny_bert, monkeypatch):
    from alignment.encoding.encoder import Encoder
    from alignment.xmover.scorer import XMoverScorer

    calls = []
    real = Encoder.encode_tokens
    monkeypatch.setattr(Encoder, "encode_tokens",
                        lambda self, s, *x, **k: calls.append(len(s)) or real(self, s, *x, **k))
    table = Runtime.of(remember=True)  # one runtime for the rows of a table
    a, b = (XMoverScorer(str(tiny_bert), layer=1, runtime=table) for _ in range(2))
    src, hyp = ["la casa", "el perro"], ["the house", "the dog"]
    first, second = a.score(src, hyp), b.score(src, hyp)
    assert calls == [2, 2]  # sources and hypotheses once, for both scorers
    assert (first.final == second.final).all()
    other = XMoverScorer(str(tiny_bert), layer=2, runtime=table)  # another layer: its own
    assert other.score(src, hyp).final.tolist() != first.final.tolist() and len(calls) == 4
    table.cache.forget()  # the next pair: encoded afresh
    a.score(src, hyp)
    assert len(calls) == 6
    alone = XMoverScorer(str(tiny_bert), layer=1)  # a runtime of its own remembers nothing
    alone.score(src, hyp), alone.score(src, hyp)
    assert len(calls) == 10


def test_rows_on_one_encoder_compute_the_sentence_term_once(tiny_bert, monkeypatch):
    from alignment.xmover.scorer import XMoverScorer
    from alignment.xmover.sentence_vectors import SentenceSimilarity

    calls = []
    real = SentenceSimilarity.vectors
    monkeypatch.setattr(SentenceSimilarity, "vectors",
                        lambda self, s, *x, **k: calls.append(len(s)) or real(self, s, *x, **k))
    table = Runtime.of(remember=True)
    a, b = (XMoverScorer(str(tiny_bert), layer=1, weights={"sentence": 0.5}, runtime=table)
            for _ in range(2))
    src, hyp = ["la casa", "el perro"], ["the house", "the dog"]
    first, second = a.score(src, hyp), b.score(src, hyp)
    assert calls == [2, 2] and (first.final == second.final).all()


def test_a_row_whose_setting_weighs_an_lm_gets_no_second_lm_and_keeps_its_own(tiny_bert,
                                                                              tiny_gpt2):
    """``evaluate --lm`` adds a ⊕ LM row for each row, but a row whose setting weighs an LM
    already would count it twice: it gets none, and its own LM weight stays; the other row's
    ⊕ LM row is that row's scorer with the LM term at the weight asked (as ``score --lm``)."""
    from alignment.judgments.benchmark import Benchmark
    from alignment.judgments.benchmark_rows import score_benchmark
    from alignment.judgments.row_spec import EncoderRow
    from alignment.judgments.segments import JudgedSegments

    data = JudgedSegments(["es-en"] * 4, ES[:4], EN[:4], np.arange(4, dtype=float))
    bench = Benchmark("toy", "toy", lambda *a: data, ("es-en",))
    notes: list[str] = []
    own = EncoderRow("own", {"*": str(tiny_bert)}, {"lm": str(tiny_gpt2), "weights": {"lm": 0.5}})
    plain = EncoderRow("plain", {"*": str(tiny_bert)})
    got = score_benchmark(bench, data, [own, plain], {"layer": 2}, str(tiny_gpt2), 0.1,
                          with_baselines=False, resamples=2, log=notes.append)
    rows = {r.label: r for r in got.rows}
    assert list(rows) == ["own ⊕ 0.5 LM", "plain", "plain ⊕ LM", "LM alone"], list(rows)
    assert "own: no ⊕ LM row (its setting weighs an LM already)" in notes
    assert "|coef:0.5" in rows["own ⊕ 0.5 LM"].signature
    assert "|coef:0.1" in rows["plain ⊕ LM"].signature
    lm = rows["LM alone"].scores
    assert rows["plain ⊕ LM"].scores == pytest.approx(rows["plain"].scores + 0.1 * lm)
    assert rows["own ⊕ 0.5 LM"].scores == pytest.approx(rows["plain"].scores + 0.5 * lm)
