"""``crossalign score``: XMoverScore of hypotheses against their sources, one a line, signed."""
from __future__ import annotations

import argparse

from alignment.errors import InputError

from .scoring import add_scorer_options, build_scorer


def run(args: argparse.Namespace) -> None:
    from alignment.corpus import read_lines

    src, hyp = read_lines(args.src), read_lines(args.hyp)
    if len(src) != len(hyp):
        raise InputError(f"line counts differ: {args.src} has {len(src)}, {args.hyp} has {len(hyp)}",
                         path=args.hyp if len(hyp) < len(src) else args.src,
                         line=min(len(src), len(hyp)) + 1)
    result = build_scorer(args).score(src, hyp)
    for v in result.final:
        print(f"{v:.6f}")
    print(f"# mean {result.final.mean():.6f}  {result.signature}")


def register(sub) -> None:
    p = sub.add_parser("score", help="XMoverScore of hypotheses against their sources")
    p.add_argument("--src", required=True, help="source sentences, one a line")
    p.add_argument("--hyp", required=True, help="hypotheses, one a line")
    add_scorer_options(p)
    p.set_defaults(func=run)
