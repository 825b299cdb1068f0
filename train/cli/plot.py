"""``crossalign plot``: PNG pictures of a mapping's subspace overlap and of training curves."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from alignment.errors import InputError


def run(args: argparse.Namespace) -> None:
    from alignment.corpus import read_parallel
    from alignment.export import load_remapped

    from ..plot import plot_curves, plot_overlap

    if not args.export and not args.metrics:
        raise InputError("give --export (with --src/--tgt) and/or --metrics", parameter="plot")
    out = Path(args.out)
    if args.export:
        if not args.src:
            raise InputError("the overlap picture needs --src (and --tgt) text", parameter="src")
        corpus = read_parallel(args.src, args.tgt)
        corpus = corpus.subset(list(range(min(args.n, len(corpus)))))
        remapped = load_remapped(args.export)
        enc = remapped.encoder
        src = np.concatenate(enc.encode_words(enc.tokenize_words(corpus.src), progress=False))
        tgt = np.concatenate(enc.encode_words(enc.tokenize_words(corpus.tgt), progress=False))
        src, tgt = src[np.isfinite(src[:, 0])], tgt[np.isfinite(tgt[:, 0])]
        m = remapped.mapping
        path = plot_overlap(src, tgt, m.map_array(src, "src"), m.map_array(tgt, "tgt"),
                            out / "overlap.png", f"{m.describe()} ({remapped.meta['encoder']})")
        print(f"wrote {path}")
    if args.metrics:
        print(f"wrote {plot_curves(args.metrics, out / 'curves.png')}")


def register(sub) -> None:
    p = sub.add_parser("plot", help="PNG pictures: subspace overlap before/after, training curves")
    p.add_argument("--export", help="export whose mapping to picture")
    p.add_argument("--src", help="source text for the overlap picture")
    p.add_argument("--tgt", help="target text for the overlap picture")
    p.add_argument("--n", type=int, default=200, help="sentences to encode")
    p.add_argument("--metrics", help="a run's Lightning CSV log (metrics.csv) for the curves")
    p.add_argument("--out", default="plots")
    p.set_defaults(func=run)
