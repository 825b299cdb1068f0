"""``crossalign score`` as scripts use it: stdin, JSON/TSV, score-only, quiet, empty
hypotheses, defaults that fit the encoder, languages in the signature and a swap warning."""
from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

from alignment.signature import parse_signature
from tests.conftest import EN, ES
from train.cli import main


def _files(tmp_path, src=ES, hyp=EN):
    (tmp_path / "src.es").write_text("".join(s + "\n" for s in src))
    (tmp_path / "hyp.en").write_text("".join(t + "\n" for t in hyp))
    return str(tmp_path / "src.es"), str(tmp_path / "hyp.en")


def _score(capsys, *args) -> tuple[int, str, str]:
    code = main(["score", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


def test_json_holds_segments_system_signature_and_counts(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    code, out, _ = _score(capsys, "--encoder", str(tiny_bert), "--src", src, "--hyp", hyp,
                          "--format", "json", "--layer", "2")
    assert code == 0
    result = json.loads(out)
    assert len(result["segments"]) == result["n"] == len(ES)
    assert result["system"] == pytest.approx(np.mean(result["segments"]))
    assert result["signature"].startswith("xmoverscore|") and result["empty_hypotheses"] == 0


def test_hypotheses_from_stdin_score_as_the_file_does(tmp_path, tiny_bert, capsys, monkeypatch):
    src, hyp = _files(tmp_path)
    base = ["--encoder", str(tiny_bert), "--layer", "2", "--src", src, "--format", "json"]
    _, from_file, _ = _score(capsys, *base, "--hyp", hyp)
    _stdin(monkeypatch, "".join(t + "\n" for t in EN))
    code, from_stdin, _ = _score(capsys, *base, "--hyp", "-")
    piped, read = json.loads(from_stdin), json.loads(from_file)
    assert code == 0 and (piped.pop("hyp"), read.pop("hyp")) == ("stdin", hyp) and piped == read


def test_both_inputs_from_stdin_are_refused(tiny_bert, capsys):
    code, _, err = _score(capsys, "--encoder", str(tiny_bert), "--src", "-", "--hyp", "-")
    assert code == 2 and "only one of --src and --hyp" in err


def test_score_only_prints_the_system_score_alone(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    base = ["--encoder", str(tiny_bert), "--layer", "2", "--src", src, "--hyp", hyp]
    _, text, _ = _score(capsys, *base)
    code, only, err = _score(capsys, *base, "-b")
    assert code == 0 and only.strip() == text.splitlines()[-1].split()[2]
    assert err.strip().startswith("# xmoverscore|")
    _, quiet, err = _score(capsys, *base, "-b", "--quiet")
    assert quiet == only and err == ""


def test_tsv_has_a_header_a_row_per_segment_the_mean_and_the_signature(tmp_path, tiny_bert,
                                                                         capsys):
    src, hyp = _files(tmp_path)
    code, out, _ = _score(capsys, "--encoder", str(tiny_bert), "--layer", "2", "--src", src,
                          "--hyp", hyp, "--format", "tsv")
    rows = out.strip().split("\n")
    assert code == 0 and rows[0] == "system\tsegment\tscore" and len(rows) == len(ES) + 3
    assert [r.split("\t")[1] for r in rows[1:-1]] == [*map(str, range(1, len(ES) + 1)), "mean"]
    assert {r.split("\t")[0] for r in rows[1:-1]} == {hyp}
    scores = [float(r.split("\t")[2]) for r in rows[1:-2]]
    assert float(rows[-2].split("\t")[2]) == pytest.approx(np.mean(scores), abs=1e-6)
    assert rows[-1].startswith("# xmoverscore|")


def test_an_empty_hypothesis_is_scored_and_counted(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path, hyp=[EN[0], "", *EN[2:]])
    code, out, err = _score(capsys, "--encoder", str(tiny_bert), "--layer", "2", "--src", src,
                            "--hyp", hyp, "--format", "json")
    result = json.loads(out)
    assert code == 0 and result["empty_hypotheses"] == 1
    assert np.isfinite(result["segments"]).all() and result["segments"][1] < max(result["segments"])
    assert "1 of 10 hypotheses are empty" in err


def test_the_default_layer_fits_a_shallow_encoder(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    code, out, err = _score(capsys, "--encoder", str(tiny_bert), "--src", src, "--hyp", hyp)
    assert code == 0 and "using its last, 2" in err
    assert parse_signature(out.splitlines()[-1].split("  ")[1])["L"] == "2"


def test_the_old_version_flag_still_works_with_a_note(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    base = ["--encoder", str(tiny_bert), "--layer", "2", "--src", src, "--hyp", hyp, "-b"]
    code, old, err = _score(capsys, *base, "--version", "2020")
    assert code == 0 and "--version is now --formula" in err and "ver:2020r2" in err
    _, new, err = _score(capsys, *base, "--formula", "2020")
    assert new == old and "now --formula" not in err


def test_languages_go_into_the_signature_and_a_swap_is_warned(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    langs = ["--src-lang", "es", "--tgt-lang", "en"]
    base = ["--encoder", str(tiny_bert), "--layer", "2", *langs, "--format", "json"]
    code, out, err = _score(capsys, *base, "--src", src, "--hyp", hyp)
    assert code == 0 and "|lang:es-en" in json.loads(out)["signature"] and "swapped" not in err
    code, _, err = _score(capsys, *base, "--src", hyp, "--hyp", src)
    assert code == 0 and "--src looks like en text, not es" in err and "swapped" in err


def test_an_export_languages_are_used_and_a_different_pair_refused(tmp_path, tiny_bert, capsys):
    from tests.alignment.test_export import _export

    _export(tmp_path, tiny_bert, "clp")
    src, hyp = _files(tmp_path)
    code, out, _ = _score(capsys, "--encoder", str(tmp_path / "exp"), "--src", src, "--hyp", hyp)
    assert code == 0 and "|lang:es-en" in out
    code, _, err = _score(capsys, "--encoder", str(tmp_path / "exp"), "--src", src, "--hyp", hyp,
                          "--src-lang", "de", "--tgt-lang", "en")
    assert code == 2 and "maps es→en, not de→en" in err


def test_a_map_scores_with_one_signature_however_it_is_loaded(tmp_path, tiny_bert, capsys):
    from tests.alignment.test_export import _export

    _, meta = _export(tmp_path, tiny_bert, "clp")
    bam = tmp_path / "exp" / meta["xmoverscore_files"][0]
    src, hyp = _files(tmp_path)
    common = ["--src", src, "--hyp", hyp, "--format", "json", "--src-lang", "es", "--tgt-lang", "en"]
    _, via_export, _ = _score(capsys, "--encoder", str(tmp_path / "exp"), *common)
    _, via_bam, _ = _score(capsys, "--encoder", str(tiny_bert), "--layer", "-1", "--mapping",
                           str(bam), *common)
    a, b = json.loads(via_export), json.loads(via_bam)
    assert np.allclose(a["segments"], b["segments"], atol=1e-6)
    assert parse_signature(a["signature"])["map"] == parse_signature(b["signature"])["map"]


@pytest.mark.parametrize("flag,value", [("--batch-size", "0"), ("--jobs", "-3"), ("--ngram", "0")])
def test_bad_numbers_are_refused_before_loading(tmp_path, capsys, flag, value):
    src, hyp = _files(tmp_path)
    code, _, err = _score(capsys, "--encoder", "no/such/model", "--src", src, "--hyp", hyp,
                          flag, value)
    assert code == 2 and f"'{flag.lstrip('-')}'" in err


def test_public_gbdd_without_a_mapping_is_refused(tmp_path, tiny_bert, capsys):
    src, hyp = _files(tmp_path)
    code, _, err = _score(capsys, "--encoder", str(tiny_bert), "--src", src, "--hyp", hyp,
                          "--public-gbdd")
    assert code == 2 and "--public-gbdd is used only with --mapping" in err
