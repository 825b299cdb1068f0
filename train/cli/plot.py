"""``crossalign plot``: PNG pictures of a mapping's subspace overlap and of training curves."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from alignment.errors import InputError

from .options import add_old_name


VERBS = {"plot": "PNG pictures: subspace overlap before/after, training curves"}


def run(args: argparse.Namespace) -> None:
    from alignment.data.corpus import read_parallel
    from alignment.export.remapped import load_remapped

    from train.runs.figures import plot_curves, plot_overlap

    if not args.export and not args.metrics:
        raise InputError("give --encoder EXPORT (with --src/--ref) and/or --metrics", parameter="plot")
    out = Path(args.out)
    if args.export:
        if not args.src:
            raise InputError("the overlap picture needs --src (and --ref) text", parameter="src")
        corpus = read_parallel(args.src, args.tgt)
        corpus = corpus.subset(list(range(min(args.n, len(corpus)))))
        remapped = load_remapped(args.export)
        enc = remapped.encoder
        src = np.concatenate(enc.encode_words(enc.tokenize_words(corpus.src), progress=False))
        tgt = np.concatenate(enc.encode_words(enc.tokenize_words(corpus.tgt), progress=False))
        src, tgt = src[np.isfinite(src[:, 0])], tgt[np.isfinite(tgt[:, 0])]
        m = remapped.mapping
        meta = remapped.meta
        path = plot_overlap(src, tgt, m.map_array(src, "src"), m.map_array(tgt, "tgt"),
                            out / "overlap.png", f"{m.describe()} ({meta['encoder']}, layer "
                            f"{meta['layer']})", meta.get("src_lang") or "source",
                            meta.get("tgt_lang") or "target")
        print(f"wrote {path}")
    if args.metrics:
        print(f"wrote {plot_curves(args.metrics, out / 'curves.png')}")


def register(sub) -> None:
    p = sub.add_parser("plot", help=VERBS["plot"])
    p.add_argument("--encoder", dest="export", help="a crossalign export whose mapping to picture")
    add_old_name(p, "--export", "--encoder", "export")
    p.add_argument("--src", help="source text for the overlap picture")
    p.add_argument("--tgt", dest="tgt", help="target text for the overlap picture")
    add_old_name(p, "--ref", "--tgt", "tgt")
    p.add_argument("--n", type=int, default=200, help="sentences to encode")
    p.add_argument("--metrics", help="a run's Lightning CSV log (metrics.csv) for the curves")
    p.add_argument("--out", default="plots", help="folder for overlap.png and curves.png")
    p.set_defaults(func=run)
