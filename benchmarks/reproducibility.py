"""Reproducible to the digit: the same commands in two fresh clones, each with its own cache
folder, must print the same numbers — README command 1's demo table (and it must equal the
table in docs/results.md), one trained map (``clp_flow``, 1 epoch) and ``score`` on the
shipped export (bible/es-en).

    python benchmarks/reproducibility.py                       # HEAD, two clones, all cores each
    python benchmarks/reproducibility.py --threads 2 1         # the second clone on 1 thread

Prints a table (check, run a, run b, equal) and writes JSON (default
benchmarks/results/reproducibility.json); exits 1 when a check differs."""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME_KEYS = re.compile(r"second|time|duration", re.I)


def run(cmd: list[str], cwd: Path, env: dict[str, str], log: Path,
        stdout: Path | None = None) -> float:
    """Run one crossalign command in a clone; its output goes to ``log`` (standard output to
    ``stdout`` when given); returns seconds."""
    start = time.time()
    with log.open("a") as fh, (stdout.open("w") if stdout else open(os.devnull, "w")) as out:
        fh.write(f"$ {' '.join(cmd)}\n")
        fh.flush()
        done = subprocess.run(cmd, cwd=cwd, env=env, stdout=out if stdout else fh,
                              stderr=subprocess.STDOUT if not stdout else fh)
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed in {cwd} (exit {done.returncode}); see {log}")
    return time.time() - start


def without_times(value):
    """A metrics record minus wall-clock entries (they differ by design)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if not TIME_KEYS.search(k)}
    return value


def one_clone(name: str, work: Path, ref: str, threads: int | None, max_sentences: int) -> dict:
    """Clone ``ref`` afresh, run the three checks there with a fresh cache; their outputs."""
    clone, cache, log = work / f"clone-{name}", work / f"cache-{name}", work / f"{name}.log"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", ref], check=True)
    env = {**os.environ, "CROSSALIGN_CACHE": str(cache), "PYTHONPATH": str(clone),
           "HF_HUB_OFFLINE": "1", "WANDB_MODE": "disabled"}
    threads = threads or os.cpu_count() or 1  # the guarantee's condition: a given count
    env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               CROSSALIGN_THREADS=str(threads))
    cli = [sys.executable, "-m", "train.cli"]
    seconds = {"demo": run(cli + ["demo"], clone, env, log)}
    table = (clone / "checkpoints" / "demo" / "table.txt").read_text()
    seconds["train clp_flow"] = run(cli + [
        "train", "--method", "clp_flow", "--epochs", "1", "--src", "data/bible/train.es",
        "--tgt", "data/bible/train.en", "--max-sentences", str(max_sentences), "--out", "runs/flow"],
        clone, env, log)
    flow = clone / "runs" / "flow"
    trained = {"metrics": without_times(json.loads((flow / "metrics.json").read_text())),
               "run": json.loads((flow / "run.json").read_text()),
               "signature": json.loads((flow / "export" / "remap.json").read_text())["signature"]}
    out = clone / "score.json"
    seconds["score"] = run(cli + [
        "score", "--encoder", "exports/bible/es-en", "--src", "data/bible/test.es",
        "--hyp", "data/bible/test.en", "--format", "json", "-q"], clone, env, log, stdout=out)
    return {"demo": table, "train clp_flow": trained, "score": json.loads(out.read_text()),
            "seconds": seconds}


def documented_table() -> list[str]:
    """The demo table's lines as docs/results.md shows them (the first code block after
    'The table as `crossalign demo` printed it')."""
    text = (ROOT / "docs" / "results.md").read_text()
    start = text.index("```", text.index("The table as `crossalign demo` printed it"))
    block = text[start + 3:text.index("```", start + 3)]
    return [line.rstrip() for line in block.strip().splitlines() if line.strip()]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", default="HEAD", help="the commit to clone")
    p.add_argument("--threads", type=int, nargs=2, default=None, metavar=("A", "B"),
                   help="torch threads of clone a and b (default: both the machine's cores)")
    p.add_argument("--max-sentences", type=int, default=2000,
                   help="verses the clp_flow check trains on")
    p.add_argument("--work", help="folder for the clones (default: a temporary one)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "reproducibility.json"))
    args = p.parse_args()
    ref = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.ref], check=True,
                         capture_output=True, text=True).stdout.strip()
    work = Path(args.work or tempfile.mkdtemp(prefix="crossalign-repro-"))
    work.mkdir(parents=True, exist_ok=True)
    threads = args.threads or [None, None]
    runs = {name: one_clone(name, work, ref, t, args.max_sentences)
            for name, t in zip("ab", threads)}
    checks = {k: runs["a"][k] == runs["b"][k] for k in ("demo", "train clp_flow", "score")}
    docs = documented_table()
    printed = [line.rstrip() for line in runs["a"]["demo"].splitlines()]
    missing = [line for line in docs if line not in printed]
    checks["demo = docs/results.md"] = not missing
    print(f"\nreproducibility of {ref[:12]} (two fresh clones, fresh caches; threads "
          f"{threads[0] or os.cpu_count()} / {threads[1] or os.cpu_count()})\n")
    print(f"{'check':<24} {'a (s)':>8} {'b (s)':>8}  equal")
    for k, ok in checks.items():
        sa, sb = (runs[x]["seconds"].get(k) for x in "ab")
        fmt = lambda s: f"{s:8.0f}" if s is not None else f"{'':>8}"
        print(f"{k:<24} {fmt(sa)} {fmt(sb)}  {'yes' if ok else 'NO'}")
    if missing:
        print("\nlines of docs/results.md's table the demo did not print:")
        print("\n".join(f"  {line}" for line in missing))
    result = {"ref": ref, "threads": threads, "machine": platform.machine(),
              "cpu_count": os.cpu_count(), "checks": checks, "missing_doc_lines": missing,
              "seconds": {x: runs[x]["seconds"] for x in "ab"},
              "demo_table": runs["a"]["demo"], "flow_signature": runs["a"]["train clp_flow"]["signature"],
              "score_signature": runs["a"]["score"].get("signature"),
              "score_system": runs["a"]["score"].get("system")}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    print(f"\nwrote {out}; clones and logs in {work}")
    sys.exit(0 if all(checks.values()) else 1)


if __name__ == "__main__":
    main()
