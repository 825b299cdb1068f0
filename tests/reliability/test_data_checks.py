"""End to end through the CLI and the library: inputs that used to leak, lose data silently or
fail late now fail at once with one line, or warn with counts."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import EN, ES, identity_alignment_file
from tests.reliability.test_outputs_and_inputs import ROOT, _one_line
from train.cli import main


def _text_recipe(tmp_path: Path, tiny_bert: Path, src: Path, tgt: Path, **data) -> Path:
    import yaml

    recipe = yaml.safe_load((ROOT / "recipes" / "trainer" / "closed-form.yaml").read_text())
    recipe["trainer"].update(default_root_dir=str(tmp_path / "run"), accelerator="cpu",
                             enable_progress_bar=False)
    recipe["model"] = {"class_path": "train.modules.ClosedFormFit", "init_args": {"method": "clp"}}
    recipe["data"].update(src=str(src), tgt=str(tgt), encoder=str(tiny_bert), progress=False, **data)
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


def test_a_pharaoh_file_is_cut_with_the_corpus(tmp_path, parallel_files, tiny_bert):
    src, tgt = parallel_files
    align = identity_alignment_file(tmp_path / "align.txt", ES, EN)  # 10 lines for 10 pairs
    recipe = _text_recipe(tmp_path, tiny_bert, src, tgt, alignment=str(align), max_sentences=4)
    assert main(["fit", "--config", str(recipe)]) == 0
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["n_sentences"] == 4
    expected = sum(min(len(s.split()), len(t.split())) for s, t in zip(ES[:4], EN[:4]))
    assert run["n_pairs"] == expected
    from alignment.data.word_align import links_fingerprint, read_pharaoh

    # run.json names the exact links used: the first 4 lines of the file
    assert run["alignment"] == links_fingerprint(read_pharaoh(align)[:4])


def test_a_pharaoh_file_for_another_corpus_is_still_refused(tmp_path, parallel_files, tiny_bert, capsys):
    src, tgt = parallel_files
    align = identity_alignment_file(tmp_path / "align.txt", ES[:7], EN[:7])
    recipe = _text_recipe(tmp_path, tiny_bert, src, tgt, alignment=str(align), max_sentences=4)
    assert main(["fit", "--config", str(recipe)]) == 2
    assert "7 alignment lines for 10 sentence pairs" in _one_line(capsys.readouterr().err)


def test_a_non_utf8_pharaoh_file_names_its_line(tmp_path, parallel_files, tiny_bert, capsys):
    src, tgt = parallel_files
    align = identity_alignment_file(tmp_path / "align.txt", ES, EN)
    lines = align.read_bytes().splitlines(keepends=True)
    lines[2] = b"0-0 \xff\xfe\n"
    align.write_bytes(b"".join(lines))
    recipe = _text_recipe(tmp_path, tiny_bert, src, tgt, alignment=str(align))
    assert main(["fit", "--config", str(recipe)]) == 2
    assert f"{align}:3: not UTF-8" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("flag, value", [("--n-test", "-5"), ("--n-dev", "-1"), ("--max-ratio", "0.5")])
def test_bible_counts_are_validated_before_reading_anything(tmp_path, capsys, flag, value):
    assert main(["data", "bible", "--out", str(tmp_path / "b"), "--sword-path",
                 str(tmp_path / "no-sword-here"), flag, value]) == 2
    assert f"parameter '{flag.lstrip('-')}'" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "b").exists()


def test_align_refuses_a_folder_as_output_before_aligning(tmp_path, parallel_files, capsys):
    src, tgt = parallel_files
    assert main(["align", "--src", str(src), "--tgt", str(tgt), "--out", str(tmp_path)]) == 2
    assert "is a folder" in _one_line(capsys.readouterr().err)


def test_a_damaged_vector_cache_entry_is_rebuilt_not_trusted(tmp_path, tiny_bert):
    from alignment.data.corpus import ParallelCorpus
    from alignment.encoding.encoder import load_encoder
    from alignment.encoding.pipeline import prepare

    corpus = ParallelCorpus(ES, EN, "toy")
    align = identity_alignment_file(tmp_path / "align.txt", ES, EN)
    enc = load_encoder(str(tiny_bert), layer=2)
    first = prepare(corpus, enc, align, cache_dir=tmp_path / "cache", progress=False)
    for f in (tmp_path / "cache" / "vectors").glob("*.safetensors"):
        f.write_bytes(f.read_bytes()[:100])
    with pytest.warns(UserWarning, match="unreadable.*encoding again"):
        again = prepare(corpus, enc, align, cache_dir=tmp_path / "cache", progress=False)
    np.testing.assert_array_equal(first.src.vectors, again.src.vectors)


@pytest.mark.parametrize("content", [b"\x93NUMPY\x01\x00garbage", b""])
def test_garbage_vector_files_are_one_line(tmp_path, capsys, content):
    (tmp_path / "pairs.npz").write_bytes(content)
    assert main(["fit", "--config", str(ROOT / "recipes" / "vectors" / "clp.yaml"), "--data.vectors",
                 str(tmp_path / "pairs.npz"), "--trainer.default_root_dir", str(tmp_path / "run")]) == 2
    assert "unreadable vector file" in _one_line(capsys.readouterr().err)


def test_an_invisible_source_is_refused_an_invisible_hypothesis_scored_and_truncation_reported(
        tmp_path, tiny_bert, capsys):
    src, hyp = tmp_path / "src", tmp_path / "hyp"
    src.write_text("la casa es grande .\nel perro come pan .\n")
    hyp.write_text("the house is big .\n\u200b\u200d\u200f\n")
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
                 "--hyp", str(hyp)]) == 0
    out = capsys.readouterr()
    assert "1 of 2 hypotheses are empty" in out.err and len(out.out.splitlines()) == 3
    assert main(["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(hyp),
                 "--hyp", str(src)]) == 2
    assert "pair 2 has an empty source" in _one_line(capsys.readouterr().err)
    from alignment.xmover import XMoverScorer

    scorer = XMoverScorer(str(tiny_bert), layer=2)
    long = " ".join(["casa"] * 80)  # the tiny encoder has 64 positions
    with pytest.warns(UserWarning, match=r"1 line of sources exceeds the encoder's 64 .*\(line 2\)"):
        scorer.score(["la casa", long], ["the house", "house"])


def test_a_bible_split_larger_than_the_bible_fails_before_reading(tmp_path, capsys):
    assert main(["data", "bible", "--out", str(tmp_path / "b"), "--sword-path",
                 str(tmp_path / "no-sword-here"), "--n-test", "40000"]) == 2
    assert "hold at most 31102 verses" in _one_line(capsys.readouterr().err)


def test_a_split_larger_than_the_chosen_books_fails_before_reading(tmp_path, capsys):
    # Ruth has 85 verses in the KJV versification: known from the canon, no module is read
    assert main(["data", "bible", "--out", str(tmp_path / "b"), "--sword-path",
                 str(tmp_path / "no-sword-here"), "--books", "Ruth", "--n-test", "50",
                 "--n-dev", "40"]) == 2
    assert "the books Ruth hold at most 85 verses" in _one_line(capsys.readouterr().err)
    assert main(["data", "bible", "--out", str(tmp_path / "b"), "--sword-path",
                 str(tmp_path / "no-sword-here"), "--books", "Genesis"]) == 2
    assert "unknown book name 'Genesis'" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "b").exists()


def test_a_non_utf8_judgment_file_names_its_line(tmp_path, capsys):
    tsv = tmp_path / "da.tsv"
    tsv.write_bytes(b"lp\tsrc\tmt\tref\tscore\nde-en\ta\tb\tc\t0.5\nde-en\t\xff\tb\tc\t0.1\n")
    (tmp_path / "scores").write_text("0.1\n0.2\n")
    assert main(["evaluate", "rfeval", "--data", str(tsv), "--scores", str(tmp_path / "scores")]) == 2
    assert f"{tsv}:3: not valid UTF-8" in _one_line(capsys.readouterr().err)
