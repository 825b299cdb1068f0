"""Reliability round 6, through the CLI: kept shard scores cannot be edited unseen, a run in
shards ends when told (no machines that never come, no waiting past SIGTERM, no thousand
processes on two cores), and every damaged or odd file the product reads — a shard, a run
record, a scoring configuration, a reuse entry, a gettext catalogue — is one line naming it or
heals with a note where the product wrote it; warnings are one ``crossalign: warning:`` line."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import EN, ES
from train.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _pairs(tmp_path: Path, n: int = 12) -> tuple[str, str]:
    src, hyp = tmp_path / "src.es", tmp_path / "hyp.en"
    src.write_text("".join(f"{ES[k % len(ES)]} {k}\n" for k in range(n)), encoding="utf-8")
    hyp.write_text("".join(f"{EN[k % len(EN)]}\n" for k in range(n)), encoding="utf-8")
    return str(src), str(hyp)


def _score(tiny_bert: Path, *extra: str) -> list[str]:
    return ["score", "--encoder", str(tiny_bert), "--layer", "2", "--device", "cpu",
            "--format", "json", *extra]


def _one_line(capsys, code: int, *words: str) -> str:
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert all(w in captured.err for w in words), captured.err
    return captured.err


def test_a_shard_whose_scores_were_edited_is_scored_again_with_a_note(tmp_path, tiny_bert,
                                                                      capsys):
    src, hyp = _pairs(tmp_path)
    shards = tmp_path / "run"
    args = _score(tiny_bert, "--src", src, "--hyp", hyp, "--shards", str(shards),
                  "--shard-size", "4")
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["segments"]
    kept = shards / "shard-000001.json"
    data = json.loads(kept.read_text())
    data["final"][0] = 0.999  # still valid JSON, still finite: only the digest tells
    kept.write_text(json.dumps(data))
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "1 kept shard files were damaged" in captured.err and "shard-000001" in captured.err
    np.testing.assert_allclose(json.loads(captured.out)["segments"], first, atol=1e-9)
    assert json.loads(kept.read_text())["final"][0] == pytest.approx(first[4])


def test_more_machines_outside_a_cluster_and_more_processes_than_cores_are_refused_at_once(
        tmp_path, tiny_bert, capsys, monkeypatch):
    src, hyp = _pairs(tmp_path, 3)
    for var in ("SLURM_NTASKS", "TORCHELASTIC_RUN_ID", "LSB_JOBID", "OMPI_COMM_WORLD_SIZE",
                "PMI_SIZE", "MASTER_ADDR", "NODE_RANK"):
        monkeypatch.delenv(var, raising=False)
    for extra in (["--num-nodes", "2"], ["--num-nodes=3", "--devices", "1"]):
        _one_line(capsys, main(_score(tiny_bert, "--src", src, "--hyp", hyp, *extra)),
                  "num-nodes", "cluster")
    many = str((os.cpu_count() or 1) + 1)
    for extra in (["--devices", many], ["--devices", ",".join(map(str, range(int(many))))]):
        _one_line(capsys, main(_score(tiny_bert, "--src", src, "--hyp", hyp, *extra)),
                  "devices", f"{many} CPU processes")
    assert not (tmp_path / "cache" / "shards").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("signum, code, said", [(signal.SIGTERM, 143, "terminated"),
                                                (signal.SIGINT, 130, "interrupted")])
def test_a_run_waiting_for_its_peers_ends_on_a_signal_within_seconds(tmp_path, tiny_bert,
                                                                     signum, code, said):
    src, hyp = _pairs(tmp_path, 4)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CROSSALIGN_CACHE": str(tmp_path / "cache"),
           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()), "NODE_RANK": "0"}
    command = [sys.executable, "-m", "train.cli", *_score(tiny_bert, "--src", src, "--hyp", hyp,
                                                          "--num-nodes", "2")]
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list((tmp_path / "cache").glob("shards/*/run.json")):
        time.sleep(0.1)
    time.sleep(2)  # into the wait for the second machine, which never comes
    assert process.poll() is None
    sent = time.time()
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert time.time() - sent < 10
    assert process.returncode == code, err[-2000:]
    assert err.strip().splitlines()[-1] == f"crossalign: {said}", err[-2000:]


def test_odd_shard_folders_are_one_line_and_a_damaged_record_in_the_cache_heals(
        tmp_path, tiny_bert, capsys):
    src, hyp = _pairs(tmp_path, 6)
    shards = tmp_path / "run"
    args = _score(tiny_bert, "--src", src, "--hyp", hyp, "--shard-size", "3")
    assert main([*args, "--shards", str(shards)]) == 0
    capsys.readouterr()
    (shards / "shard-000001.json").unlink()
    (shards / "shard-000001.json").mkdir()  # a folder where a shard's file belongs
    _one_line(capsys, main([*args, "--shards", str(shards)]), "shard-000001.json", "is a folder")
    assert (shards / "shard-000001.json").is_dir()  # not the product's to remove
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    _one_line(capsys, main([*args, "--shards", str(afile / "run")]), "afile is a file")
    assert afile.read_text() == "mine\n"
    (shards / "run.json").write_text("{ cut sho")  # a user's folder: refused, not rewritten
    _one_line(capsys, main([*args, "--shards", str(shards)]), "not a crossalign shards record")
    assert (shards / "run.json").read_text() == "{ cut sho"

    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"{s}\t{h}\n" for s, h in zip(Path(src).read_text().splitlines(),
                                                           Path(hyp).read_text().splitlines())))
    own = _score(tiny_bert, "--pairs-file", str(pairs), "--shard-size", "3")
    assert main(own) == 0  # the default folder, in crossalign's own cache
    whole = json.loads(capsys.readouterr().out)["segments"]
    (record,) = Path(os.environ["CROSSALIGN_CACHE"]).glob("shards/*/run.json")
    for damage in ("{ cut sho", "[" * 100_000 + "]" * 100_000):
        record.write_text(damage)
        assert main(own) == 0
        captured = capsys.readouterr()
        assert "was damaged: written again" in captured.err and "Traceback" not in captured.err
        assert json.loads(captured.out)["segments"] == whole
        assert json.loads(record.read_text())["format"] == "crossalign-shards-1"


@pytest.fixture
def identity_export(tmp_path, tiny_bert):
    from alignment.encoding.encoder import load_encoder
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_remapped
    from alignment.mappings.affine import Identity

    encoder = load_encoder(str(tiny_bert), layer=1)
    folder = tmp_path / "export"
    export_remapped(folder, Identity(encoder.dim),
                    DataProvenance(encoder.identity(), None, None, None, "t", "es", "en"))
    return folder


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000 + "]" * 100_000, ("scoring.json", "nested too deeply")),
    ('{"format": "crossalign-scoring-1", "formula": "20', ("scoring.json", "not JSON")),
    ('{"format": "crossalign-scoring-1", "weights": {"' + "x" * 10_000_000 + '": 1}}',
     ("scoring.json", "characters)")),
])
def test_a_damaged_scoring_configuration_is_one_line_and_never_copied_forward(
        tmp_path, identity_export, capsys, text, words):
    (identity_export / "scoring.json").write_text(text)
    src, hyp = _pairs(tmp_path, 2)
    err = _one_line(capsys, main(["score", "--encoder", str(identity_export), "--src", src,
                                  "--hyp", hyp]), *words)
    assert len(err) < 2000  # a bounded excerpt, never the file
    out = tmp_path / "upgraded"
    _one_line(capsys, main(["export", "--upgrade", str(identity_export), "--out", str(out)]),
              *words)
    assert not out.exists()


def test_a_zero_weight_read_from_scoring_json_is_blamed_on_the_file(tmp_path, identity_export,
                                                                     capsys):
    (identity_export / "scoring.json").write_text(json.dumps({
        "format": "crossalign-scoring-1", "formula": "2022", "read": "given",
        "precision": "fp32", "lm": None, "weights": {"xmover": 0.0}}))
    src, hyp = _pairs(tmp_path, 2)
    err = _one_line(capsys, main(["score", "--encoder", str(identity_export), "--src", src,
                                  "--hyp", hyp]), "scoring.json")
    assert "--xmover-weight" not in err


def test_a_huge_identity_in_scoring_json_is_quoted_as_an_excerpt(tmp_path, identity_export,
                                                                  capsys):
    (identity_export / "scoring.json").write_text(json.dumps({
        "format": "crossalign-scoring-1", "formula": "2022", "read": "given",
        "precision": "fp32", "lm": None, "weights": {"xmover": 1.0},
        "identities": {"use": "u" * 10_000_000}}))
    src, hyp = _pairs(tmp_path, 2)
    assert main(["score", "--encoder", str(identity_export), "--src", src, "--hyp", hyp]) == 0
    err = capsys.readouterr().err
    assert "the term use was measured as" in err and len(err) < 5000


def test_a_reuse_entry_replaced_by_a_plain_array_file_heals(tmp_path, tiny_bert, capsys):
    src, hyp = _pairs(tmp_path, 3)
    args = _score(tiny_bert, "--src", src, "--hyp", hyp, "--reuse")
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["segments"]
    entries = list(Path(os.environ["CROSSALIGN_CACHE"]).glob("reuse/**/*.npz"))
    assert entries
    for entry in entries:
        with entry.open("wb") as fh:
            np.save(fh, np.arange(3.0))
    for _ in range(2):  # healed on the first run, read back on the second
        assert main(args) == 0
        captured = capsys.readouterr()
        assert json.loads(captured.out)["segments"] == first
        assert "Traceback" not in captured.err


def test_a_damaged_gettext_catalogue_is_one_warning_line(tmp_path, capsys):
    from train.cli import _one_line_warnings

    from alignment.data.packaged_pairs import gettext_pairs

    folder = tmp_path / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "broken.mo").write_bytes(b"\x00not a catalogue\n" * 3)
    with _one_line_warnings(), warnings.catch_warnings():
        warnings.simplefilter("always")
        gettext_pairs("de", tmp_path)
        warnings.warn("a third-party library's advice")  # raised here, outside the product
    err = capsys.readouterr().err
    assert err.startswith("crossalign: warning: 1 of 1 gettext catalogues of 'de' could not be "
                          "read and were skipped") and err.count("\n") == 1, err
    assert "warnings.warn" not in err and "third-party" not in err


def test_a_rerun_of_a_finished_run_in_shards_prints_no_loader_warning(tmp_path, tiny_bert,
                                                                      capsys):
    src, hyp = _pairs(tmp_path, 4)
    args = _score(tiny_bert, "--src", src, "--hyp", hyp, "--shards", str(tmp_path / "run"))
    assert main(args) == 0
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "1 already scored" in err and "DataLoader" not in err and "warning" not in err
