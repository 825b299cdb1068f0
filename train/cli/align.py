"""``crossalign align``: word alignment of a parallel corpus with eflomal (Pharaoh output)."""
from __future__ import annotations

import argparse

from .options import ALIGN_SEED_HELP, add_old_name, align_seed


VERBS = {"align": "word-align a parallel corpus with eflomal (Pharaoh output)"}

def run(args: argparse.Namespace) -> None:
    from alignment.data.corpus import read_parallel
    from alignment.encoding.pipeline import tokenize_corpus, word_alignment
    from alignment.data.tokenize import Tokenizer
    from alignment.data.word_align import write_pharaoh

    from pathlib import Path

    from alignment.errors import InputError

    if Path(args.out).is_dir():  # before reading and aligning, not after
        raise InputError("is a folder; give the Pharaoh file to write", path=args.out)
    for given in (args.src, args.tgt):
        if given and Path(given).resolve() == Path(args.out).resolve():
            raise InputError(f"--out is the input {given}; write the links to another file",
                             parameter="out")
    corpus = read_parallel(args.src, args.tgt, args.fmt)
    src, tgt = tokenize_corpus(corpus, Tokenizer(lowercase=args.lowercase))
    links = word_alignment(src, tgt, "eflomal", args.symmetrise, args.one_to_one,
                           seed=args.align_seed)
    write_pharaoh(args.out, links)
    print(f"wrote {sum(map(len, links))} links for {len(links)} sentence pairs to {args.out}")


def register(sub) -> None:
    p = sub.add_parser("align", help=VERBS["align"])
    p.add_argument("--src", required=True, help="source file (or one TSV / fast_align file)")
    p.add_argument("--tgt", help="target file for the two-file format")
    p.add_argument("--input-format", dest="fmt", default="auto",
                   choices=["auto", "text", "tsv", "fast_align"],
                   help="format of the input files (auto: by content)")
    add_old_name(p, "--fmt", "--input-format", "fmt", choices=["auto", "text", "tsv", "fast_align"])
    p.add_argument("--out", required=True, help="Pharaoh i-j file to write")
    p.add_argument("--symmetrise", default="grow-diag-final-and",
                   choices=["grow-diag-final-and", "intersect"],
                   help="how the two directions' links are combined")
    p.add_argument("--one-to-one", action="store_true", help="keep 1-to-1 links only")
    p.add_argument("--align-seed", type=align_seed, default=0, help=ALIGN_SEED_HELP)
    p.add_argument("--lowercase", action="store_true", help="lower-case words before aligning")
    p.set_defaults(func=run)
