"""``crossalign score --metric``: the seeds' other metrics (MoverScore v1/v2, BaryScore,
BERTScore) over the same encoder or export, against the sources (reference-free) or with
``--ref`` against references; every preprocessing choice an option and in the signature."""
from __future__ import annotations

import argparse
import sys

from alignment.errors import InputError

METRICS = ("xmoverscore", "moverscore-v1", "moverscore-v2", "baryscore", "bertscore", "sentsim")
XMOVER_ONLY = (("words", "words"), ("consensus", "consensus"), ("paired_bs", "paired-bs"),
               ("lm", "lm"), ("term", "term"), ("pairs", "pairs"), ("shards", "shards"))


def add_metric_options(p: argparse.ArgumentParser) -> None:
    from alignment.metrics.preprocessing import IDF, PRESETS, SUBWORDS

    g = p.add_argument_group("other metrics (--metric)")
    g.add_argument("--metric", choices=METRICS, default="xmoverscore",
                   help="the metric (default: xmoverscore); the others score over the same "
                   "--encoder: an export's map on the source side, at the export's layer")
    g.add_argument("--ref", help="references, one a line: score the hypotheses against them "
                   "(the metric's published, reference-based form) instead of the sources")
    g.add_argument("--preprocessing", choices=sorted(PRESETS),
                   help="start from this preset (default: the metric's published one)")
    g.add_argument("--subwords", choices=SUBWORDS, help="the pieces read: all, or each word's "
                   "first")
    g.add_argument("--punctuation", choices=["drop", "keep"], help="single punctuation tokens")
    g.add_argument("--stopwords", metavar="FILE", help="drop these words (spaces or lines); "
                   "the list's name and hash are signed")
    g.add_argument("--idf", choices=IDF, help="token weights: none, corpus (each side's own "
                   "sentences), default-only (BaryScore's public code)")
    g.add_argument("--lowercase", action="store_true", default=None, help="lowercase first")
    g.add_argument("--layers", type=int, nargs="+", help="hidden-state indices read (plain "
                   "encoder; default: MoverScore v1 the last 5, v2 the last; BaryScore --last-"
                   "layers)")
    g.add_argument("--last-layers", type=int, default=5, help="BaryScore's layers (default 5)")
    g.add_argument("--sentence-term", default="use", metavar="TERM",
                   help="SentSim's sentence similarity, a registered term (default: use)")


def wants_other_metric(args: argparse.Namespace) -> bool:
    return getattr(args, "metric", "xmoverscore") != "xmoverscore"


def check_metric_options(args: argparse.Namespace) -> None:
    """What the other metrics cannot take, refused before anything loads."""
    if not wants_other_metric(args):
        given = [flag for flag, dest in (("--ref", "ref"), ("--stopwords", "stopwords"),
                                         ("--layers", "layers"), ("--idf", "idf"),
                                         ("--subwords", "subwords"))
                 if getattr(args, dest, None) is not None]
        if given:
            raise InputError(f"{given[0]} is for --metric moverscore-v1|moverscore-v2|"
                             "baryscore|bertscore", parameter="metric")
        return
    for dest, flag in XMOVER_ONLY:
        if getattr(args, dest, None):
            raise InputError(f"--{flag} is XMoverScore's: leave it out with --metric "
                             f"{args.metric}", parameter=flag)
    if not args.hyp or len(args.hyp) != 1:
        raise InputError("give one --hyp file", parameter="hyp")
    if args.ref is None and args.src is None:
        raise InputError("give --src (reference-free) or --ref (against references)",
                         parameter="ref")
    if args.ref is not None and args.src is not None:
        raise InputError("give --src or --ref, not both", parameter="ref")
    if args.metric in ("bertscore", "sentsim") and (args.stopwords or args.subwords or args.idf
                                                    or args.punctuation or args.preprocessing):
        raise InputError(f"{args.metric} here reads every token without idf (BERTScore F1)",
                         parameter="metric")
    if args.metric == "sentsim":
        from alignment.terms import get_term

        get_term(args.sentence_term, parameter="sentence-term")
    if args.metric == "baryscore" and args.last_layers < 1:
        raise InputError(f"must be >= 1, got {args.last_layers}", parameter="last-layers")
    if args.metric == "baryscore" and args.layers:
        raise InputError("BaryScore reads its --last-layers", parameter="layers")
    if args.metric == "moverscore-v2" and getattr(args, "given_ngram", False) and args.ngram != 1:
        raise InputError("MoverScore v2 reads unigrams only", parameter="ngram")


def preprocessing(args: argparse.Namespace):
    """The metric's preset with the options given over it."""
    from alignment.metrics.preprocessing import Stopwords, preset

    base = preset(args.preprocessing or ("baryscore" if args.metric == "baryscore"
                                         else args.metric))
    return base.with_options(
        subwords=args.subwords, lowercase=args.lowercase, idf=args.idf,
        punctuation=None if args.punctuation is None else args.punctuation == "drop",
        stopwords=Stopwords.from_file(args.stopwords) if args.stopwords else None)


def run_metric(args: argparse.Namespace) -> None:
    """Read, build, score, print: the shape of ``score``'s output, the metric's signature."""
    from alignment.data.corpus import read_lines
    from alignment.xmover.score_result import ScoreResult, has_text
    from .score_output import render

    check_metric_options(args)
    other_path = args.ref or args.src
    hyp_path = args.hyp[0]
    other, hyps = read_lines(other_path), read_lines(hyp_path, allow_empty=True)
    if len(other) != len(hyps):
        raise InputError(f"line counts differ: {other_path} has {len(other)}, {hyp_path} has "
                         f"{len(hyps)}", path=hyp_path if len(hyps) < len(other) else other_path,
                         line=min(len(other), len(hyps)) + 1)
    if args.metric == "bertscore":
        result = _bertscore(args, other, hyps)
    elif args.metric == "sentsim":
        from alignment.metrics import build_consumer

        metric = build_consumer("sentsim", args.encoder, sentence=args.sentence_term,
                                layer=args.layer, batch_size=args.batch_size, device=args.device)
        result = metric.score(hyps, references=other) if args.ref else \
            metric.score(hyps, sources=other)
    else:
        from alignment.metrics import build_consumer

        options = {"preprocessing": preprocessing(args), "batch_size": args.batch_size,
                   "device": args.device}
        if args.metric == "baryscore":
            options["last_layers"] = args.last_layers
        else:
            options["layers"] = args.layers
        if args.metric == "moverscore-v1":
            options["ngram"] = args.ngram if getattr(args, "given_ngram", False) else 1
        metric = build_consumer(args.metric, args.encoder, **options)
        result = metric.score(hyps, references=other) if args.ref else \
            metric.score(hyps, sources=other)
    scores = ScoreResult(result.final, result.signature,
                         empty_hypotheses=sum(not has_text(h) for h in hyps))
    print(render([scores], [hyp_path], args.format, args.score_only))
    if args.score_only and args.format != "json" and not args.quiet:
        print(f"# {scores.signature}", file=sys.stderr)


def _bertscore(args: argparse.Namespace, other: list[str], hyps: list[str]):
    from alignment.metrics.bertscore import cross_lingual_bertscore

    return cross_lingual_bertscore(args.encoder, other, hyps, args.layer, args.batch_size,
                                   args.device, against_reference=args.ref is not None)
