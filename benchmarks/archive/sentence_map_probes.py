"""Sentence-map variants beyond the closed-form ones, measured on MLQE-PE dev only (the five
to-English pairs; no test set read): the ridge of the least-squares map, a margin (CSLS)
against the nearest training sentences, one map pooled over every language's pairs, a linear
map trained contrastively (InfoNCE over in-batch translations) and a residual MLP on top of it.
Reads the sentence vectors that benchmarks/archive/single_system.py cached (run it first with
``--sizes … 7000``). ``--layers`` compares instead the encoder's layers for the sentence vectors
(least-squares maps on 2,000 pairs; one encoder pass gives every layer; about 15 minutes).

    python benchmarks/archive/single_system.py --data data --sizes 500 1000 2000 4000 7000
    python benchmarks/archive/sentence_map_probes.py --data data
    python benchmarks/archive/sentence_map_probes.py --data data --layers 4 6 8 10 11 12

Prints one row a variant (Pearson a pair, the average, the paired-bootstrap Δ against the
shipped kind) after checking the training loop on a toy with a known answer, and writes
benchmarks/results/sentence_map_probes.json."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from alignment.xmover.sentence_map import cosine, fit_matrix
from benchmarks.archive.single_system import (PAIRS, TO_ENGLISH_DEV, Vectors, chunked, get_benchmark,
                                      training_text)


def trained_map(x: np.ndarray, y: np.ndarray, hidden: int, steps: int, seed: int = 0,
                batch: int = 256, tau: float = 0.05, least_squares_start: bool = True):
    """A map of centred ``x`` onto centred ``y`` started at least squares (else at random) and
    trained with InfoNCE (each sentence's translation against the batch's others) for
    ``steps`` optimiser steps; ``hidden`` > 0 adds a residual MLP whose output starts at zero.
    Returns (map, mean loss over the first and the last 20 steps)."""
    torch.manual_seed(seed)
    matrix, mx, my = fit_matrix(x, y, "least-squares")
    xs = torch.tensor(x - mx, dtype=torch.float32)
    ys = torch.nn.functional.normalize(torch.tensor(y - my, dtype=torch.float32), dim=1)
    linear = torch.nn.Linear(x.shape[1], y.shape[1], bias=False)
    if least_squares_start:
        linear.weight.data = torch.tensor(matrix.T, dtype=torch.float32)
    mlp = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.GELU(),
                              torch.nn.Linear(hidden, y.shape[1])) if hidden else None
    if mlp is not None:
        torch.nn.init.zeros_(mlp[2].weight)
        torch.nn.init.zeros_(mlp[2].bias)
    apply = (lambda v: linear(v) + mlp(v)) if mlp is not None else linear
    params = list(linear.parameters()) + (list(mlp.parameters()) if mlp is not None else [])
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=1e-4)
    losses = []
    for _ in range(steps):
        idx = torch.randint(0, len(xs), (batch,))
        logits = torch.nn.functional.normalize(apply(xs[idx]), dim=1) @ ys[idx].T / tau
        loss = torch.nn.functional.cross_entropy(logits, torch.arange(batch))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return (lambda v: apply(torch.tensor(v - mx, dtype=torch.float32)).detach().numpy(), my), \
        (float(np.mean(losses[:20])), float(np.mean(losses[-20:])))


def toy_check(steps: int) -> tuple[float, float]:
    """The training loop on a toy with a known answer (``y`` a rotation of ``x``, started at
    random): its loss must fall towards 0, or the real rows say nothing about the objective."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 32))
    rotation = np.linalg.qr(rng.normal(size=(32, 32)))[0]
    return trained_map(x, x @ rotation, 0, steps, least_squares_start=False)[1]


def interval(a: dict, b: dict, segs, lp, resamples: int = 1000) -> tuple[float, float]:
    """95% paired-bootstrap interval (segments resampled within each pair) of the difference
    in average Pearson between two variants' scores ``{pair: scores}``."""
    rng = np.random.default_rng(0)
    human = np.asarray(segs.human)
    index = {p: np.flatnonzero(lp == p) for p in a}
    diffs = []
    for _ in range(resamples):
        d = []
        for p, idx in index.items():
            k = rng.integers(0, len(idx), len(idx))
            h = human[idx][k]
            d.append(np.corrcoef(a[p][k], h)[0, 1] - np.corrcoef(b[p][k], h)[0, 1])
        diffs.append(np.mean(d))
    return float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))


def layer_vectors(encoder, sentences: list[str], layers: list[int], prefix: str = "query: ",
                  batch_size: int = 64) -> np.ndarray:
    """(len(layers), n, d) unit-length mean-pooled sentence vectors of every layer asked for,
    from one forward pass a batch (the pooling of the sentence-level term at each layer)."""
    from alignment.data.batching import make_batches

    tokenizer, model = encoder.tokenizer, encoder.model
    enc = tokenizer([prefix + s for s in sentences], truncation=True, max_length=encoder.max_length)
    out = np.zeros((len(layers), len(sentences), model.config.hidden_size))
    with torch.inference_mode():
        for batch in make_batches([len(ids) for ids in enc["input_ids"]], batch_size):
            padded = tokenizer.pad({k: [enc[k][i] for i in batch] for k in enc.keys()},
                                   return_tensors="pt")
            states = model(**padded, output_hidden_states=True).hidden_states
            mask = padded["attention_mask"].unsqueeze(-1).float()
            for j, layer in enumerate(layers):
                out[j, batch] = ((states[layer] * mask).sum(1) / mask.sum(1)).numpy()
    return out / np.linalg.norm(out, axis=2, keepdims=True)


def layer_rows(data: Path, layers: list[int], n: int = 2000) -> dict:
    """MLQE-PE dev Pearson of the least-squares sentence map (``n`` pairs) at each layer, and
    at two concatenations of layers and the mean of the layers from 8 on."""
    from alignment.encoding.encoder import load_encoder
    from benchmarks.archive.single_system import ENCODER

    encoder = load_encoder(ENCODER)
    segs = get_benchmark("mlqe").load(data / "mlqe", "dev", TO_ENGLISH_DEV)
    lp = np.asarray(segs.lp)
    vectors = {}
    for pair in TO_ENGLISH_DEV:
        sub = segs.subset(np.flatnonzero(lp == pair))
        x, y = training_text(data, "mlqe", pair, n)
        vectors[pair] = [layer_vectors(encoder, side, layers) for side in (x, y, sub.src, sub.mt)]
        print(f"{pair}: encoded", flush=True)
    at = {layer: j for j, layer in enumerate(layers)}
    views = {f"layer {layer}": (lambda v, j=j: v[j]) for layer, j in at.items()}
    if {8, 10, 12} <= set(at):
        views["layers 8 and 12, concatenated"] = lambda v: np.concatenate([v[at[8]], v[at[12]]], 1)
        views["layers 10 and 12, concatenated"] = lambda v: np.concatenate([v[at[10]], v[at[12]]], 1)
        views["mean of layers 8 and up"] = lambda v: v[[j for k, j in at.items() if k >= 8]].mean(0)
    out = {}
    print(f"{'MLQE-PE dev, sentence map alone (' + str(n) + ' pairs)':44s} " + " ".join(TO_ENGLISH_DEV))
    for name, view in views.items():
        rs = []
        for pair in TO_ENGLISH_DEV:
            x, y, src, mt = (view(v) for v in vectors[pair])
            matrix, mx, my = fit_matrix(x, y, "least-squares")
            rs.append(float(np.corrcoef(cosine((src - mx) @ matrix, mt - my),
                                        segs.human[lp == pair])[0, 1]))
        out[name] = {**dict(zip(TO_ENGLISH_DEV, rs)), "avg": float(np.mean(rs))}
        print(f"{name:44s} " + " ".join(f"{r:.3f}" for r in rs) + f"  avg {np.mean(rs):.3f}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data")
    ap.add_argument("--root", default="checkpoints/single_system")
    ap.add_argument("--pairs-per-map", type=int, default=7000)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--layers", type=int, nargs="+",
                    help="compare these encoder layers for the sentence vectors instead")
    ap.add_argument("--out", default="benchmarks/results/sentence_map_probes.json")
    args = ap.parse_args()
    torch.set_num_threads(2)
    if args.layers:
        rows = layer_rows(Path(args.data), args.layers)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).with_name("sentence_map_layers.json").write_text(json.dumps(rows, indent=1))
        return
    data, vec, n = Path(args.data), Vectors(Path(args.root)), args.pairs_per_map
    segs = get_benchmark("mlqe").load(data / "mlqe", "dev", TO_ENGLISH_DEV)
    lp = np.asarray(segs.lp)
    train = {}
    for bench in ("mlqe", "wmt17"):
        for pair in PAIRS[bench]:
            x, y = training_text(data, bench, pair, n)
            train[(bench, pair)] = (chunked(vec, "e5", x), chunked(vec, "e5", y))
    pooled_x = np.concatenate([x - x.mean(0) for x, _ in train.values()])
    pooled_y = np.concatenate([y - y.mean(0) for _, y in train.values()])
    pooled, _, _ = fit_matrix(pooled_x, pooled_y, "least-squares")
    out, notes, scores = {}, {}, {}
    first, last = toy_check(args.steps)
    notes["toy (rotation, random start)"] = {"loss_first": first, "loss_last": last}
    print(f"training loop on a toy with a known answer: loss {first:.3f} -> {last:.3f} "
          f"in {args.steps} optimiser steps")
    shipped = "least squares, own pairs, ridge 0.001"

    def row(name: str, score) -> None:
        rs, scores[name] = [], {}
        for pair in TO_ENGLISH_DEV:
            sub = segs.subset(np.flatnonzero(lp == pair))
            scores[name][pair] = s = score(pair, vec("e5", sub.src), vec("e5", sub.mt))
            rs.append(float(np.corrcoef(s, sub.human)[0, 1]))
        out[name] = {**dict(zip(TO_ENGLISH_DEV, rs)), "avg": float(np.mean(rs))}
        delta = ""
        if name != shipped:
            lo, hi = interval(scores[name], scores[shipped], segs, lp)
            out[name]["delta_vs_shipped"] = [out[name]["avg"] - out[shipped]["avg"], lo, hi]
            delta = f"  Δ {out[name]['avg'] - out[shipped]['avg']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        print(f"{name:44s} " + " ".join(f"{r:.3f}" for r in rs) + f"  avg {np.mean(rs):.3f}"
              + delta, flush=True)

    print(f"{'MLQE-PE dev, sentence term alone':44s} " + " ".join(TO_ENGLISH_DEV))
    for ridge in (1e-3, 0.1, 0.3):
        def own(pair, src, mt, ridge=ridge):
            x, y = train[("mlqe", pair)]
            matrix, mx, my = fit_matrix(x, y, "least-squares", ridge)
            return cosine((src - mx) @ matrix, mt - my)
        row(f"least squares, own pairs, ridge {ridge:g}", own)

    def centred(pair, src, mt):
        x, y = train[("mlqe", pair)]
        return cosine(src - x.mean(0), mt - y.mean(0))
    row("centring alone (the simplest map)", centred)

    def margin(pair, src, mt, k=64):
        """CSLS-style margin: the cosine less the mean cosine of each side with its k nearest
        training sentences of the other language (the hubness correction of bitext mining)."""
        x, y = train[("mlqe", pair)]
        matrix, mx, my = fit_matrix(x, y, "least-squares")
        unit = (lambda v: v / np.linalg.norm(v, axis=1, keepdims=True))
        s, t = unit((src - mx) @ matrix), unit(mt - my)
        xs, ys = unit((x - mx) @ matrix), unit(y - my)
        near = (lambda a, b: np.sort(a @ b.T, 1)[:, -k:].mean(1))
        return 2 * (s * t).sum(1) - near(s, ys) - near(t, xs)
    row("least squares, margin against 64 neighbours", margin)

    def shared(pair, src, mt):
        x, y = train[("mlqe", pair)]
        return cosine((src - x.mean(0)) @ pooled, mt - y.mean(0))
    row("least squares pooled over 12 pairs", shared)
    for name, hidden in (("InfoNCE linear", 0), ("InfoNCE linear + residual MLP", 1024)):
        def learnt(pair, src, mt, hidden=hidden, name=name):
            (apply, my), losses = trained_map(*train[("mlqe", pair)], hidden, args.steps)
            notes[f"{name}/{pair}"] = {"loss_first": losses[0], "loss_last": losses[1]}
            return cosine(apply(src), mt - my)
        row(f"{name}, {args.steps} steps", learnt)
    Path(args.out).write_text(json.dumps({"pairs_per_map": n, "steps": args.steps,
                                          "rows": out, "training": notes}, indent=1))


if __name__ == "__main__":
    main()
