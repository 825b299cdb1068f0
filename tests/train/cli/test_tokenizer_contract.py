"""The tokenizer contract: every verb runs the same on a WordPiece (``##``, [CLS]/[SEP]) and a
SentencePiece (``▁``, <s>/</s>, XLM-R's real 250k-piece vocabulary) encoder — word pooling,
special tokens from the tokenizer, alignment-to-subword mapping, idf, the XMoverScore n-gram
logic, Joint-Align and exports."""
from __future__ import annotations

import json

import numpy as np

from tests.conftest import EN, ES
from tests.train.cli.test_first_use import _own_text as _texts
from train.cli import main


def test_train_export_score_evaluate_encode(tmp_path, any_tiny_bert, capsys):
    src, tgt, align = _texts(tmp_path)
    run = tmp_path / "run"
    assert main(["train", "--method", "center > clp", "--src", src, "--tgt", tgt, "--out",
                 str(run), "--encoder", str(any_tiny_bert), "--alignment", align]) == 0
    export = run / "export"
    for version in ("2020", "2022"):
        capsys.readouterr()
        assert main(["score", "--encoder", str(export), "--src", src, "--hyp", tgt, "--version",
                     version, "--idf-src", src, "--idf-hyp", tgt, "--format",
                     "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert len(out["segments"]) == len(ES) * 3 and np.isfinite(out["system"])
        assert f"|ver:{version}" in out["signature"] and "idf:none" not in out["signature"]
    assert main(["evaluate", "--encoder", str(export), "--src", src, "--tgt",
                 tgt, "--out", str(tmp_path / "eval")]) == 0
    metrics = json.loads((tmp_path / "eval" / "metrics.json").read_text())
    assert any(k.endswith("retrieval_cosine_src2tgt") for k in metrics)
    assert main(["encode", src, "--encoder", str(any_tiny_bert), "--cache-dir",
                 str(tmp_path / "cache")]) == 0
    assert any((tmp_path / "cache").rglob("*"))


def test_a_flow_and_an_unsupervised_method_train(tmp_path, any_tiny_bert):
    src, tgt, align = _texts(tmp_path)
    assert main(["train", "--method", "clp_flow:transforms=2", "--src", src, "--tgt", tgt,
                 "--out", str(tmp_path / "flow"), "--encoder", str(any_tiny_bert), "--alignment",
                 align, "--epochs", "1", "--val-fraction", "0.3", "--trainer.enable_progress_bar",
                 "false"]) == 0
    for method in ("mining:min_sentences=2,rounds=2", "vecmap:max_iterations=20"):
        name = method.split(":")[0]
        assert main(["train", "--method", method, "--src", src, "--tgt", tgt, "--out",
                     str(tmp_path / name), "--encoder", str(any_tiny_bert), "--layer", "2"]) == 0
    for run in ("flow", "mining", "vecmap"):
        assert (tmp_path / run / "export" / "remap.json").is_file()


def test_challenge_and_w2w(tmp_path, any_tiny_bert):
    from tests.alignment.test_challenge import ENGLISH, SPANISH

    (tmp_path / "src").write_text("\n".join(SPANISH) + "\n")
    (tmp_path / "ref").write_text("\n".join(ENGLISH) + "\n")
    (tmp_path / "lex.tsv").write_text("el\tthe\nhombre\tman\npan\tbread\n")
    out = tmp_path / "out"
    assert main(["evaluate", "challenge", "--src", str(tmp_path / "src"), "--ref",
                 str(tmp_path / "ref"), "--lexicon", str(tmp_path / "lex.tsv"), "--encoder",
                 str(any_tiny_bert), "--layer", "2", "--version", "2020", "2022",
                 "--bootstrap", "50", "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert 0 <= metrics["unmapped · 2020/ranking/share"] <= 1
    assert main(["evaluate", "w2w", "--encoder", str(any_tiny_bert), "--layer", "2", "--src",
                 str(tmp_path / "src"), "--ref", str(tmp_path / "ref"), "--lexicon",
                 str(tmp_path / "lex.tsv"), "--out", str(tmp_path / "w2w")]) == 0


def test_joint_align_fine_tunes_and_bertscore_reads_the_export(tmp_path, any_tiny_bert):
    from alignment.metrics.bertscore import cross_lingual_bertscore
    from tests.train.modules.test_joint_align_fit import _recipe

    assert main(["fit", "--config", str(_recipe(tmp_path, any_tiny_bert, "ja"))]) == 0
    export = tmp_path / "ja" / "export"
    assert json.loads((export / "remap.json").read_text())["encoder_weights"] == "."
    f1 = cross_lingual_bertscore(str(export), ES[:3], EN[:3]).f1
    assert len(f1) == 3 and all(np.isfinite(f1))


def test_special_tokens_come_from_the_tokenizer_and_2020_keeps_one_piece_per_word(any_tiny_bert):
    from alignment.encoding.encoder import Encoder, EncoderSpec
    from alignment.xmover.ngrams import select_tokens

    enc = Encoder(EncoderSpec(str(any_tiny_bert), layer=2), device="cpu")
    sentencepiece = enc.bare_markers != frozenset()
    ((tokens, special, vecs),) = enc.encode_tokens(["la casa blanca es bonita ."])
    assert (tokens[0], tokens[-1]) == (enc.tokenizer.cls_token, enc.tokenizer.sep_token)
    assert special[0] and special[-1] and not any(special[1:-1])
    kept = [tokens[i] for i in select_tokens(tokens, special, "2020", sentencepiece)]
    assert kept[0] == tokens[0] and kept[-1] == tokens[-1]
    assert len(kept) - 2 == 5  # one piece per word, the full stop dropped
    assert enc.identity().subwords == ("no-bare-marker" if sentencepiece else None)
    from alignment.xmover import XMoverScorer  # the signature says which pieces were pooled

    assert ("|sub:nobare|" in XMoverScorer(str(any_tiny_bert), layer=2).signature) \
        == sentencepiece


def test_a_word_split_into_a_bare_marker_and_its_text_is_pooled_from_its_text(
        tiny_sentencepiece_bert):
    from alignment.encoding.encoder import Encoder, EncoderSpec

    enc = Encoder(EncoderSpec(str(tiny_sentencepiece_bert), layer=2), device="cpu")
    words = ["Und", "wandten", "sich", "."]
    ids = enc.tokenizer(words, is_split_into_words=True)
    pieces = enc.tokenizer.convert_ids_to_tokens(ids["input_ids"])
    assert "▁" in pieces  # the case exists in this real vocabulary
    (vectors,) = enc.encode_words([words], progress=False)
    ((_, _, states),) = enc.encode_tokens([" ".join(words)])
    word_ids = ids.word_ids()
    for w in range(len(words)):
        first = next(t for t, (p, i) in enumerate(zip(pieces, word_ids))
                     if i == w and (p != "▁" or word_ids.count(w) == 1))
        assert pieces[first] != "▁" or word_ids.count(w) == 1
        np.testing.assert_allclose(vectors[w], states[first], atol=1e-5)
