"""``crossalign score --hyp A B …``: several systems against one source — per-system scores,
paired-bootstrap differences from the first, the sources encoded once, and over-long lines
named by file and line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from alignment.encoding.encoder import Encoder
from tests.conftest import EN, ES
from train.cli import main


def _files(tmp_path) -> tuple[str, str, str]:
    (tmp_path / "src.es").write_text("".join(s + "\n" for s in ES))
    (tmp_path / "a.en").write_text("".join(t + "\n" for t in EN))
    (tmp_path / "b.en").write_text("".join(t + "\n" for t in EN[1:] + EN[:1]))  # misaligned
    return str(tmp_path / "src.es"), str(tmp_path / "a.en"), str(tmp_path / "b.en")


def _score(capsys, tiny_bert, *args) -> tuple[int, str, str]:
    code = main(["score", "--encoder", str(tiny_bert), "--layer", "2", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_each_system_scores_as_alone_and_the_sources_are_encoded_once(tmp_path, tiny_bert, capsys,
                                                                     monkeypatch):
    src, a, b = _files(tmp_path)
    alone = [json.loads(_score(capsys, tiny_bert, "--src", src, "--hyp", h, "--format", "json")[1])
             for h in (a, b)]
    calls = []
    real = Encoder.encode_tokens
    monkeypatch.setattr(Encoder, "encode_tokens",
                        lambda self, sentences, *x, **k: calls.append(k.get("desc"))
                        or real(self, sentences, *x, **k))
    code, out, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, "--format", "json")
    together = json.loads(out)
    assert code == 0 and calls.count("encoding sources") == 1 and len(calls) == 3
    assert [s["hyp"] for s in together["systems"]] == [a, b]
    for one, many in zip(alone, together["systems"]):
        np.testing.assert_allclose(many["segments"], one["segments"], atol=1e-6)
        assert many["system"] == pytest.approx(one["system"])
    assert together["signature"] == alone[0]["signature"]


def test_paired_bootstrap_gives_each_system_its_difference_from_the_first(tmp_path, tiny_bert,
                                                                         capsys):
    src, a, b = _files(tmp_path)
    (tmp_path / "a2.en").write_text((tmp_path / "a.en").read_text())
    code, out, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, str(tmp_path / "a2.en"),
                          "--format", "json", "--paired-bs", "--bootstrap", "200")
    result = json.loads(out)
    first, other, same = result["systems"]
    assert code == 0 and "difference" not in first
    diff = other["difference"]
    assert diff["mean"] == pytest.approx(np.mean(other["segments"]) - np.mean(first["segments"]))
    assert diff["low"] <= diff["mean"] <= diff["high"] and diff["low"] < diff["high"]
    assert same["difference"] == {"mean": 0.0, "low": 0.0, "high": 0.0, "level": 0.95}
    assert result["paired_bootstrap"] == {"n": 200, "seed": 0, "level": 0.95}
    code, text, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, "--paired-bs",
                           "--bootstrap", "200")
    lines = text.splitlines()
    assert code == 0 and lines[0].split()[:2] == ["system", "score"] and "95% interval" in lines[0]
    assert lines[2].startswith(b) and f"{diff['mean']:+.6f}" in lines[2]
    assert lines[-2].startswith("# paired bootstrap: 200 resamples of the 10 segments, seed 0")
    assert lines[-1].startswith("# xmoverscore|")


def test_tsv_carries_system_mean_difference_and_signature(tmp_path, tiny_bert, capsys):
    src, a, b = _files(tmp_path)
    code, out, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, "--format", "tsv",
                          "--paired-bs", "--bootstrap", "50")
    rows = [r.split("\t") for r in out.strip().split("\n")]
    assert code == 0 and rows[0] == ["system", "segment", "score", "difference", "low", "high"]
    means = {r[0]: r for r in rows[1:-1] if r[1] == "mean"}
    assert set(means) == {a, b} and means[a][3] == "" and float(means[b][4]) <= float(means[b][5])
    assert sum(r[0] == b for r in rows[1:-1]) == len(ES) + 1
    assert rows[-1][0].startswith("# xmoverscore|")


def test_score_only_prints_one_system_score_a_line(tmp_path, tiny_bert, capsys):
    src, a, b = _files(tmp_path)
    _, out, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, "--format", "json")
    code, only, err = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, "-b")
    assert code == 0 and [float(x) for x in only.split()] == pytest.approx(
        [s["system"] for s in json.loads(out)["systems"]], abs=1e-6)
    assert err.startswith("# xmoverscore|")


@pytest.mark.parametrize("extra,parameter", [(["--paired-bs"], "paired-bs"),
                                             (["--paired-bs", "--bootstrap", "0"], "bootstrap"),
                                             ("twice", "hyp")])
def test_bad_comparisons_are_refused_before_loading(tmp_path, capsys, extra, parameter):
    src, a, b = _files(tmp_path)
    hyps = [a, a] if extra == "twice" else [a] if extra[-1] == "--paired-bs" else [a, b]
    code = main(["score", "--encoder", "no/such/model", "--src", src, "--hyp", *hyps,
                 *([] if extra == "twice" else extra)])
    err = capsys.readouterr().err
    assert code == 2 and f"parameter '{parameter}" in err and len(err.strip().splitlines()) == 1


def test_over_long_lines_are_one_note_per_file_naming_every_line(tmp_path, tiny_bert, capsys):
    src, a, b = _files(tmp_path)
    long = " ".join(["casa"] * 80)  # the tiny encoder takes 64 positions
    lines = ES.copy()
    lines[2] = lines[6] = long
    (tmp_path / "src.es").write_text("".join(s + "\n" for s in lines))
    code, _, err = _score(capsys, tiny_bert, "--src", src, "--hyp", a)
    notes = [line for line in err.splitlines() if "exceed" in line]
    assert code == 0 and notes == [
        f"crossalign: note: 2 lines of {src} exceed the encoder's 64 subword pieces and are "
        "scored on the first 64 (lines 3, 7)"]
    assert "Warning" not in err and "Token indices" not in err


def test_consensus_moves_each_system_toward_what_the_others_say(tmp_path, tiny_bert, capsys):
    src, a, b = _files(tmp_path)
    (tmp_path / "a2.en").write_text((tmp_path / "a.en").read_text())
    code, out, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, str(tmp_path / "a2.en"),
                          "--format", "json", "--consensus")
    result = json.loads(out)
    first, misaligned, copy = result["systems"]
    assert code == 0 and result["signature"].endswith("combine:z-sum-per-pair")
    # standard units over all segments together; the two systems that agree outscore the third
    pooled = np.concatenate([s["segments"] for s in result["systems"]])
    assert pooled.mean() == pytest.approx(0.0, abs=1e-9)
    assert first["segments"] == pytest.approx(copy["segments"])
    assert first["system"] > misaligned["system"]
    code, _, err = _score(capsys, tiny_bert, "--src", src, "--hyp", a, b, "--consensus")
    assert code != 0 and "three or more --hyp files" in err


def test_score_adds_the_sentence_term_when_asked(tmp_path, tiny_bert, capsys):
    src, a, _ = _files(tmp_path)
    plain = json.loads(_score(capsys, tiny_bert, "--src", src, "--hyp", a, "--format", "json")[1])
    code, out, _ = _score(capsys, tiny_bert, "--src", src, "--hyp", a, "--format", "json",
                          "--sentence-weight", "0.5", "--sentence-layer", "1")
    result = json.loads(out)
    assert code == 0 and result["signature"].endswith("|sent:L1,mean*0.5")
    gained = np.array(result["segments"]) - np.array(plain["segments"])
    assert ((0 < gained) & (gained <= 0.5 + 1e-9)).all()  # 0.5 × a cosine of similar sentences
