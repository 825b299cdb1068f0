"""Training throughput of Real-NVP and FCNN (vectors/s) at growing numbers of pairs (cost must
grow linearly), and CSLS retrieval time for n × n pools; CPU, and GPU when present.

    python benchmarks/flow_throughput.py                       # d = 384 (MiniLM width)
    python benchmarks/flow_throughput.py --dim 768 --csls 100000

Prints a table and writes JSON (default benchmarks/results/flow.json)."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from alignment.evaluation.csls import nearest
from alignment.mappings.moments import PairStatistics
from train.fitting.plan import build_fitter


def train_throughput(method: str, n: int, dim: int, device: str, batch: int = 512) -> float:
    """Vectors per second of one epoch of optimiser steps on random pairs."""
    torch.manual_seed(0)
    x, y = torch.randn(n, dim, device=device), torch.randn(n, dim, device=device)
    module = build_fitter(method, dim=dim).to(device)
    if method == "realnvp":
        module.mapping.standardise_with(PairStatistics.of(x, y))
    opt = module.configure_optimizers()
    module.loss(x[:batch], y[:batch])["loss"].backward()  # warm-up
    if device == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    for s in range(0, n, batch):
        opt.zero_grad()
        module.loss(x[s:s + batch], y[s:s + batch])["loss"].backward()
        opt.step()
    if device == "cuda":
        torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


def csls_seconds(n: int, dim: int, device: str) -> float:
    torch.manual_seed(0)
    q, k = torch.randn(n, dim, device=device), torch.randn(n, dim, device=device)
    t = time.perf_counter()
    nearest(q, k, "csls", k=10)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--pairs", type=int, nargs="+", default=[2048, 8192])
    ap.add_argument("--csls", type=int, nargs="+", default=[10000, 20000])
    ap.add_argument("--out", default="benchmarks/results/flow.json")
    ap.add_argument("--devices", nargs="+", default=["cpu", "cuda"], choices=["cpu", "cuda"],
                    help="which rows to run (cuda rows only where a GPU is present)")
    args = ap.parse_args()
    devices = [d for d in args.devices if d == "cpu" or torch.cuda.is_available()]
    rows = []
    print(f"{'device':6} {'what':22} {'n':>8} {'result':>14}")
    for device in devices:
        for method in ("realnvp", "fcnn"):
            for n in args.pairs:
                v = train_throughput(method, n, args.dim, device)
                rows.append({"device": device, "what": f"train {method}", "n": n, "vectors_per_s": v})
                print(f"{device:6} {'train ' + method:22} {n:>8} {v:>10.0f} v/s")
        for n in args.csls:
            s = csls_seconds(n, args.dim, device)
            rows.append({"device": device, "what": "csls", "n": n, "seconds": s})
            print(f"{device:6} {'CSLS n x n':22} {n:>8} {s:>12.2f} s")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"dim": args.dim, "threads": torch.get_num_threads(), "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
