"""Scoring a benchmark's rows: rows named per pair, one encoding shared by rows on one encoder,
and one signature line per row."""
import pytest

from alignment.errors import InputError
from alignment.judgments.benchmark_rows import joint_signature, parse_row, share_encodings


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


def test_rows_on_one_encoder_encode_each_sentence_list_once(tiny_bert):
    from alignment.xmover.scorer import XMoverScorer

    memo: dict = {}
    a, b = XMoverScorer(str(tiny_bert), layer=1), XMoverScorer(str(tiny_bert), layer=1)
    calls = []
    for scorer in (a, b):
        original = scorer.encoder.encode_tokens
        scorer.encoder.encode_tokens = (lambda s, *x, _o=original, **k: calls.append(len(s)) or _o(s, *x, **k))
        share_encodings(scorer, memo)
    src, hyp = ["la casa", "el perro"], ["the house", "the dog"]
    first, second = a.score(src, hyp), b.score(src, hyp)
    assert calls == [2, 2]  # sources and hypotheses once, for both scorers
    assert (first.final == second.final).all()
    other = XMoverScorer(str(tiny_bert), layer=2)  # another layer: its own encodings
    share_encodings(other, memo)
    assert other.score(src, hyp).final.tolist() != first.final.tolist()


def test_rows_on_one_encoder_compute_the_sentence_term_once(tiny_bert):
    from alignment.xmover.scorer import XMoverScorer

    memo: dict = {}
    a, b = (XMoverScorer(str(tiny_bert), layer=1, weights={"sentence": 0.5}) for _ in range(2))
    calls = []
    for scorer in (a, b):
        original = scorer.sentence.vectors
        scorer.sentence.vectors = (lambda s, _o=original: calls.append(len(s)) or _o(s))
        share_encodings(scorer, memo)
    src, hyp = ["la casa", "el perro"], ["the house", "the dog"]
    first, second = a.score(src, hyp), b.score(src, hyp)
    assert calls == [2, 2] and (first.final == second.final).all()
