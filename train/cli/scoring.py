"""Options and construction shared by every verb that scores with XMoverScore."""
from __future__ import annotations

import argparse


def add_scorer_options(p: argparse.ArgumentParser, encoder_required: bool = True,
                       many: bool = False) -> None:
    """The scorer's flags; ``many``: several encoders and versions (one table row each)."""
    from alignment.xmover import VERSIONS

    p.add_argument("--encoder", required=encoder_required, nargs="+" if many else None,
                   help="HF encoder name/path or a crossalign export" + (" (several)" if many else ""))
    p.add_argument("--version", default=["2022"] if many else "2022", choices=sorted(VERSIONS),
                   nargs="+" if many else None)
    p.add_argument("--layer", type=int, help="hidden-state index (default: the version's, "
                   + ", ".join(f"{v.name} {v.layer}" for v in VERSIONS.values()) + ")")
    p.add_argument("--ngram", type=int, default=2)
    p.add_argument("--mapping", help="public XMoverScore .BAM (CLP) or .GBDD (UMD) file, applied "
                   "to the source side (as the public code does)")
    p.add_argument("--mapping-both-sides", action="store_true",
                   help="apply the mapping to the hypothesis too (UMD as the paper defines it)")
    p.add_argument("--public-gbdd", action="store_true",
                   help="apply a .GBDD as the public code does (its [0] index subtracts one "
                   "scalar from every component); only to reproduce published UMD numbers")
    p.add_argument("--idf-src", help="corpus (one sentence a line) for source idf weights")
    p.add_argument("--idf-hyp", help="corpus for hypothesis idf weights")
    p.add_argument("--lm", help="HF causal LM name/path for the fluency term")
    p.add_argument("--lm-coef", type=float, default=0.1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--jobs", type=int, help="processes solving transport problems (default: all cores)")


def build_scorer(args: argparse.Namespace):
    from alignment.corpus import read_lines
    from alignment.xmover import XMoverScorer, compute_idf

    scorer = XMoverScorer(args.encoder, args.version, args.layer, args.ngram, args.mapping,
                          lm=args.lm, lm_coef=args.lm_coef, batch_size=args.batch_size,
                          n_jobs=args.jobs, mapping_both_sides=args.mapping_both_sides,
                          public_gbdd=args.public_gbdd)
    tok = scorer.encoder.tokenizer.tokenize
    if args.idf_src:
        scorer.idf_src = compute_idf(read_lines(args.idf_src), tok)
    if args.idf_hyp:
        scorer.idf_hyp = compute_idf(read_lines(args.idf_hyp), tok)
    return scorer
