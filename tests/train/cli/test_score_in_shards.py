"""``crossalign score`` in shards: two gloo processes on the CPU give the one-process scores in
input order, a rerun scores only the shards not kept (the kept files untouched), a run killed
halfway finishes from its shards, and what a run in shards cannot do is refused up front."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import EN, ES

ROOT = Path(__file__).resolve().parents[3]


def _pairs(tmp_path: Path, n: int = 30) -> tuple[Path, Path]:
    src, hyp = tmp_path / "src.es", tmp_path / "hyp.en"
    src.write_text("".join(ES[k % len(ES)] + f" {k}\n" for k in range(n)), encoding="utf-8")
    hyp.write_text("".join(("" if k % 7 == 3 else EN[k % len(EN)]) + "\n" for k in range(n)),
                   encoding="utf-8")
    return src, hyp


def _command(tiny_bert, *extra: str) -> list[str]:
    return [sys.executable, "-m", "train.cli", "score", "--encoder", str(tiny_bert), "--layer",
            "2", "--device", "cpu", "--format", "json", *extra]


def _run(tmp_path: Path, command: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CROSSALIGN_CACHE": str(tmp_path / "cache")}
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)


def test_two_processes_give_the_one_process_scores_and_a_rerun_keeps_finished_shards(
        tmp_path, tiny_bert):
    src, hyp = _pairs(tmp_path)
    one = _run(tmp_path, _command(tiny_bert, "--src", str(src), "--hyp", str(hyp), "-q"))
    assert one.returncode == 0, one.stderr[-3000:]
    shards = tmp_path / "run"
    two = _run(tmp_path, _command(tiny_bert, "--src", str(src), "--hyp", str(hyp), "--devices",
                                  "2", "--shards", str(shards), "--shard-size", "4"))
    assert two.returncode == 0, two.stderr[-3000:]
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert b["signature"] == a["signature"] and b["n"] == 30
    np.testing.assert_allclose(b["segments"], a["segments"], rtol=0, atol=1e-6)
    assert b["empty_hypotheses"] == a["empty_hypotheses"] == 4
    assert two.stderr.count("30 pairs in 8 shards") == 1  # process 0 alone reports
    kept = {p.name: p.stat().st_mtime_ns for p in shards.glob("shard-*.json")}
    assert len(kept) == 8
    for name in ("shard-000002.json", "shard-000005.json"):
        (shards / name).unlink()  # as if the run had been killed before them
    again = _run(tmp_path, _command(tiny_bert, "--src", str(src), "--hyp", str(hyp), "--shards",
                                    str(shards), "--shard-size", "4"))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "6 already scored, resumed" in again.stderr
    rerun = json.loads(again.stdout)["segments"]
    np.testing.assert_allclose(rerun, b["segments"], rtol=0, atol=1e-6)  # 2 shards rescored
    kept_rows = [k for k in range(30) if k // 4 not in (2, 5)]  # the kept shards: read back
    assert [rerun[k] for k in kept_rows] == [b["segments"][k] for k in kept_rows]
    after = {p.name: p.stat().st_mtime_ns for p in shards.glob("shard-*.json")}
    assert {k for k in kept if after[k] == kept[k]} == set(kept) - {"shard-000002.json",
                                                                    "shard-000005.json"}


def test_a_pairs_file_scores_as_the_two_files_do(tmp_path, tiny_bert):
    src, hyp = _pairs(tmp_path, 9)
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("".join(f"{s}\t{h}\n" for s, h in zip(src.read_text().splitlines(),
                                                           hyp.read_text().splitlines())))
    one = _run(tmp_path, _command(tiny_bert, "--src", str(src), "--hyp", str(hyp), "-q"))
    sharded = _run(tmp_path, _command(tiny_bert, "--pairs-file", str(tsv), "--shard-size", "4", "-q"))
    assert sharded.returncode == 0, sharded.stderr[-3000:]
    np.testing.assert_allclose(json.loads(sharded.stdout)["segments"],
                               json.loads(one.stdout)["segments"], atol=1e-6)
    assert list((tmp_path / "cache" / "shards").iterdir())  # the default folder: in the cache


@pytest.mark.slow
def test_a_run_killed_halfway_finishes_from_its_shards(tmp_path, tiny_bert):
    src, hyp = _pairs(tmp_path, 60)
    shards = tmp_path / "run"
    command = _command(tiny_bert, "--src", str(src), "--hyp", str(hyp), "--shards",
                       str(shards), "--shard-size", "1", "-q")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CROSSALIGN_CACHE": str(tmp_path / "cache")}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(list(shards.glob("shard-*.json"))) < 5:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    kept = {p.name: p.stat().st_mtime_ns for p in shards.glob("shard-*.json")}
    assert 5 <= len(kept)
    again = _run(tmp_path, command[:-1])
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"{len(kept)} already scored, resumed" in again.stderr or len(kept) == 60
    whole = _run(tmp_path, _command(tiny_bert, "--src", str(src), "--hyp", str(hyp), "-q"))
    np.testing.assert_allclose(json.loads(again.stdout)["segments"],
                               json.loads(whole.stdout)["segments"], atol=1e-6)
    assert all(p.stat().st_mtime_ns == kept[p.name] for p in shards.glob("shard-*.json")
               if p.name in kept)


@pytest.mark.parametrize("extra, parameter", [
    (["--consensus"], "consensus"), (["--paired-bs"], "paired-bs"), (["--words"], "words"),
    (["--precision", "int8"], "precision"), (["--devices", "0"], "devices"),
    (["--num-nodes", "0"], "num-nodes"),
])
def test_what_a_run_in_shards_cannot_do_is_refused_before_loading(tmp_path, tiny_bert, capsys,
                                                                  extra, parameter):
    from train.cli import main

    src, hyp = _pairs(tmp_path, 3)
    code = main(["score", "--encoder", str(tiny_bert), "--src", str(src), "--hyp", str(hyp),
                 "--shards", str(tmp_path / "run"), *extra])
    assert code != 0 and parameter in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_pairs_and_two_files_together_or_neither_are_refused(tmp_path, tiny_bert, capsys):
    from train.cli import main

    src, hyp = _pairs(tmp_path, 3)
    assert main(["score", "--encoder", str(tiny_bert), "--pairs-file", str(src), "--src", str(src),
                 "--hyp", str(hyp)]) != 0
    assert "not both" in capsys.readouterr().err
    assert main(["score", "--encoder", str(tiny_bert), "--src", str(src)]) != 0
    assert "--hyp" in capsys.readouterr().err
