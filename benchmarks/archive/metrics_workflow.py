"""The metrics workflow's speed, idle and beside another job: scoring 1,000 pairs with the
Bible test bed's shipped flow export (``bible/es-en``) — as before (the map applied per sentence, a torch thread per core) and as
now (the map applied in large batches, `--threads auto`) — against a `center > clp` export,
and a `clp_flow` training epoch, each on an idle machine and with another 2-thread torch job
running beside it. Every timing is a fresh `crossalign` process, its start included.

    python benchmarks/archive/metrics_workflow.py                   # the table, and JSON in results/
    python benchmarks/archive/metrics_workflow.py --pairs 200 --train-verses 500   # a quick look

Needs the Bible test bed (`crossalign data bible`). On a GPU machine the rows run there too
(the load is then CPU-side only); the device column says which."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOW_EXPORT = "bible/es-en"  # the shipped flow, found by name
LOAD = ("import torch\ntorch.set_num_threads(2)\na = torch.randn(1000, 1000)\n"
        "while True:\n    a @ a\n")
PER_SENTENCE = """
import sys, numpy as np
import alignment.xmover.scorer as scorer
def per_sentence(parts, transform, progress=False):  # the map applied one sentence at a time
    return [transform(p.astype(np.float64)) for p in parts]
scorer.map_rows = per_sentence
from train.cli import main
sys.exit(main(sys.argv[1:]))
"""


class Load:
    """Another 2-thread job on the machine while the block runs (none when ``on`` is false)."""

    def __init__(self, on: bool) -> None:
        self.on, self.proc = on, None

    def __enter__(self) -> "Load":
        if self.on:
            self.proc = subprocess.Popen([sys.executable, "-c", LOAD])
            time.sleep(3)  # let it reach full speed (and the load average notice it)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            time.sleep(2)


def timed(argv: list[str], threads: str, env: dict, per_sentence: bool = False) -> float:
    """Wall-clock seconds of one ``crossalign`` process."""
    cmd = [sys.executable, "-c", PER_SENTENCE] if per_sentence else \
        [sys.executable, "-m", "train.cli"]
    start = time.perf_counter()
    done = subprocess.run(cmd + ["--threads", threads, *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=str(ROOT / "data" / "bible"))
    p.add_argument("--pairs", type=int, default=1000, help="pairs scored (default: 1000)")
    p.add_argument("--train-verses", type=int, default=2000,
                   help="verses of the clp_flow training epoch (default: 2000)")
    p.add_argument("--work", help="folder for runs and inputs (default: a temporary one)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "metrics_workflow.json"))
    args = p.parse_args()
    import torch

    data = Path(args.data_dir)
    work = Path(args.work or tempfile.mkdtemp(prefix="crossalign-workflow-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CROSSALIGN_CACHE": str(work / "cache"), "HF_HUB_OFFLINE": "1",
           "WANDB_MODE": "disabled", "PYTHONPATH": str(ROOT)}
    src, hyp = work / "test.es", work / "test.en"
    for name, path in (("test.es", src), ("test.en", hyp)):
        lines = (data / name).read_text(encoding="utf-8").splitlines()[:args.pairs]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    cores = str(os.cpu_count() or 1)
    train = ["train", "--src", str(data / "train.es"), "--tgt", str(data / "train.en"),
             "--max-sentences", str(args.train_verses)]
    print("setting up: a center > clp export, and the clp_flow data encoded once (cached)")
    timed(train + ["--method", "center > clp", "--out", str(work / "clp"), "--overwrite"], cores, env)
    score = ["score", "--src", str(src), "--hyp", str(hyp), "-q", "-b"]
    flow, clp = ["--encoder", FLOW_EXPORT], ["--encoder", str(work / "clp" / "export")]
    fit = train + ["--method", "clp_flow", "--epochs", "1", "--overwrite"]
    rows: list[dict] = []

    def row(task: str, what: str, loaded: bool, threads: str, argv: list[str], **kw) -> None:
        with Load(loaded):
            seconds = timed(argv, threads, env, **kw)
        rows.append({"task": task, "variant": what, "machine": "loaded" if loaded else "idle",
                     "threads": threads, "seconds": round(seconds, 2)})
        print(f"  {task:<26} {what:<34} {rows[-1]['machine']:<7} {threads:>5}  {seconds:7.1f} s",
              flush=True)

    timed(fit + ["--out", str(work / "flow")], cores, env)  # the first fit fills the cache
    print(f"{'task':<28} {'variant':<34} {'machine':<7} {'threads':>5}  {'wall':>9}")
    n = f"score {args.pairs} pairs"
    before, now = "flow export, map per sentence", "flow export, map batched (now)"
    fit_task = "train clp_flow 1 epoch"
    fit_what = f"{args.train_verses} verses, data cached"
    plan = [(n, before, False, cores, score + flow, True), (n, now, False, "auto", score + flow, False),
            (n, "center > clp export", False, "auto", score + clp, False),
            (n, before, True, cores, score + flow, True), (n, now, True, "auto", score + flow, False),
            (n, now, True, cores, score + flow, False),
            (fit_task, fit_what, False, "auto", fit + ["--out", str(work / "flow")], False),
            (fit_task, fit_what, True, "auto", fit + ["--out", str(work / "flow")], False),
            (fit_task, fit_what, True, cores, fit + ["--out", str(work / "flow")], False)]
    for task, what, loaded, threads, argv, per_sentence in plan:
        row(task, what, loaded, threads, argv, per_sentence=per_sentence)
    t = {(r["task"], r["variant"], r["machine"], r["threads"]): r["seconds"] for r in rows}
    summary = {
        "score: now vs before, idle": t[(n, before, "idle", cores)] / t[(n, now, "idle", "auto")],
        "score: now vs before, loaded": t[(n, before, "loaded", cores)] / t[(n, now, "loaded", "auto")],
        "score: flow / center > clp export, idle":
            t[(n, now, "idle", "auto")] / t[(n, "center > clp export", "idle", "auto")],
        "score: loaded / idle, now": t[(n, now, "loaded", "auto")] / t[(n, now, "idle", "auto")],
        "score: loaded / idle, before": t[(n, before, "loaded", cores)] / t[(n, before, "idle", cores)],
        "train: loaded / idle, auto": t[(fit_task, fit_what, "loaded", "auto")] /
            t[(fit_task, fit_what, "idle", "auto")],
        f"train: loaded / idle, {cores} threads": t[(fit_task, fit_what, "loaded", cores)] /
            t[(fit_task, fit_what, "idle", "auto")],
    }
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"\n{device}, {cores} cores; load = another 2-thread torch job")
    for k, v in summary.items():
        print(f"  {k:<40} {v:5.2f}x")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"device": device, "cores": int(cores), "pairs": args.pairs,
                               "train_verses": args.train_verses, "rows": rows,
                               "summary": summary}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
