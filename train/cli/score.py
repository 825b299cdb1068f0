"""``crossalign score``: XMoverScore of hypotheses against their sources — per segment and for
the system, signed; as text, JSON or TSV, from files or standard input."""
from __future__ import annotations

import argparse
import json
import sys

from alignment.errors import InputError

from .scoring import add_scorer_options, build_scorer, check_scorer_options

VERBS = {"score": "XMoverScore of hypotheses against their sources (no reference needed)"}
PROGRESS_FROM = 100  # pairs; below this a run takes seconds and shows no bars


def run(args: argparse.Namespace) -> None:
    from alignment.data.corpus import STDIN, read_lines
    from alignment.evaluation.language_check import looks_like_other

    if args.src == STDIN and args.hyp == STDIN:
        raise InputError("only one of --src and --hyp can be read from standard input",
                         parameter="hyp")
    check_scorer_options(args)
    src, hyp = read_lines(args.src), read_lines(args.hyp, allow_empty=True)
    if len(src) != len(hyp):
        raise InputError(f"line counts differ: {args.src} has {len(src)}, {args.hyp} has {len(hyp)}",
                         path=args.hyp if len(hyp) < len(src) else args.src,
                         line=min(len(src), len(hyp)) + 1)
    scorer = build_scorer(args, quiet=args.quiet)
    if scorer.languages and not args.quiet:
        s, t = scorer.languages
        for name, lines, want, other in (("--src", src, s, t), ("--hyp", hyp, t, s)):
            if looks_like_other(lines, want, other):
                print(f"crossalign: warning: {name} looks like {other} text, not {want} (this "
                      f"scorer maps {s}→{t}): are --src and --hyp swapped?", file=sys.stderr)
    result = scorer.score(src, hyp, progress=not args.quiet and len(src) >= PROGRESS_FROM)
    if result.empty_hypotheses and not args.quiet:
        print(f"crossalign: note: {result.empty_hypotheses} of {len(hyp)} hypotheses are empty; "
              "scored as the formula defines them (special tokens only)", file=sys.stderr)
    print(render(result, args.format, args.score_only))
    if args.score_only and args.format != "json" and not args.quiet:
        print(f"# {result.signature}", file=sys.stderr)


def render(result, fmt: str, score_only: bool) -> str:
    """The scores as ``text`` (one a line, then ``# mean X  signature``), ``json`` or ``tsv``;
    ``score_only``: the system score alone."""
    if fmt == "json":
        out = {"system": result.system, "signature": result.signature, "n": len(result.final),
               "empty_hypotheses": result.empty_hypotheses}
        if not score_only:
            out["segments"] = [float(v) for v in result.final]
            if result.lm is not None:
                out["xmover"] = [float(v) for v in result.xmover]
                out["lm"] = [float(v) for v in result.lm]
        return json.dumps(out, indent=None if score_only else 1, ensure_ascii=False)
    if score_only:
        return f"{result.system:.6f}"
    if fmt == "tsv":
        header = "segment\tscore" + ("\txmover\tlm" if result.lm is not None else "")
        rows = [f"{k}\t{v:.6f}" + (f"\t{result.xmover[k - 1]:.6f}\t{result.lm[k - 1]:.6f}"
                                   if result.lm is not None else "")
                for k, v in enumerate(result.final, start=1)]
        return "\n".join([header, *rows])
    return "\n".join([*(f"{v:.6f}" for v in result.final),
                      f"# mean {result.system:.6f}  {result.signature}"])


def register(sub) -> None:
    p = sub.add_parser("score", help=VERBS["score"],
                       description="XMoverScore of each hypothesis against its source, and the "
                       "system score (their mean), with a signature saying how it was made.",
                       epilog="examples:\n"
                       "  crossalign score --encoder exports/center-clp-realnvp --src test.es "
                       "--hyp test.en\n"
                       "  my_mt < test.es | crossalign score --encoder EXPORT --src test.es "
                       "--hyp - --format json")
    p.add_argument("--src", required=True, help="source sentences, one a line ('-': stdin)")
    p.add_argument("--hyp", required=True, help="hypotheses (MT output), one a line ('-': stdin); "
                   "empty lines are scored")
    p.add_argument("--format", default="text", choices=["text", "json", "tsv"],
                   help="text: one score a line and '# mean …  signature'; json: segments, "
                   "system, signature, counts; tsv: a header and one row a segment")
    p.add_argument("-b", "--score-only", action="store_true",
                   help="print the system score only (the signature goes to stderr)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no notes, warnings or progress on stderr (errors still)")
    add_scorer_options(p)
    p.set_defaults(func=run)
