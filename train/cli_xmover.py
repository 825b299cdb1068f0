"""Command-line verbs around XMoverScore: ``score``, ``evaluate rfeval``, ``evaluate w2w``."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from alignment.errors import InputError


def add_scorer_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--encoder", required=True, help="HF encoder name/path or a crossalign export")
    p.add_argument("--version", default="2022", choices=["2020", "2022"])
    p.add_argument("--layer", type=int, help="hidden-state index (default: 2020 last, 2022 8)")
    p.add_argument("--ngram", type=int, default=2)
    p.add_argument("--mapping", help="public XMoverScore .BAM (CLP) or .GBDD (UMD) file")
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
                          n_jobs=args.jobs)
    tok = scorer.encoder.tokenizer.tokenize
    if args.idf_src:
        scorer.idf_src = compute_idf(read_lines(args.idf_src), tok)
    if args.idf_hyp:
        scorer.idf_hyp = compute_idf(read_lines(args.idf_hyp), tok)
    return scorer


def cmd_score(args: argparse.Namespace) -> None:
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


def cmd_rfeval(args: argparse.Namespace) -> None:
    from alignment.atomic import write_text
    from alignment.corpus import read_lines
    from alignment.correlation import correlations, read_judgments

    data = read_judgments(args.data)
    if args.scores:
        lines = read_lines(args.scores)
        try:
            metric = np.array([float(x) for x in lines if not x.startswith("#")])
        except ValueError as err:
            raise InputError(f"not a number: {err}", path=args.scores) from None
        sig = "scores from " + str(args.scores)
    else:
        if not args.encoder:
            raise InputError("give --scores FILE or an --encoder to score with", parameter="encoder")
        result = build_scorer(args).score(data.src, data.mt)
        metric, sig = result.final, result.signature
    out = correlations(data, metric, args.bootstrap, args.seed)
    print(f"{'lp':10} {'segments':>8} {'Pearson [95% CI]':>24} {'Kendall τ [95% CI]':>24} {'system r':>9}")
    for lp in sorted(set(data.lp)):
        sysr = out.get(f"{lp}/system_pearson")
        print(f"{lp:10} {int(out[f'{lp}/segments']):>8} "
              f"{out[f'{lp}/pearson']:>7.3f} [{out[f'{lp}/pearson_lo']:.3f}, {out[f'{lp}/pearson_hi']:.3f}] "
              f"{out[f'{lp}/kendall']:>7.3f} [{out[f'{lp}/kendall_lo']:.3f}, {out[f'{lp}/kendall_hi']:.3f}] "
              f"{'' if sysr is None else f'{sysr:9.3f}'}")
    print(f"average Pearson {out['avg/pearson']:.3f}, Kendall {out['avg/kendall']:.3f}\n{sig}")
    if args.out:
        write_text(Path(args.out) / "metrics.json", json.dumps(out, indent=2, sort_keys=True))


def cmd_w2w(args: argparse.Namespace) -> None:
    from alignment.atomic import write_text
    from alignment.corpus import read_parallel, read_lines
    from alignment.lexicon import read_lexicon
    from alignment.w2w import literal_translation, w2w_share

    if not args.mt and not args.lexicon:
        raise InputError("give --lexicon (for the literal translation) or --mt", parameter="lexicon")
    corpus = read_parallel(args.src, args.ref)
    if args.mt:
        other = read_lines(args.mt)
        if len(other) != len(corpus):
            raise InputError(f"{len(other)} lines for {len(corpus)} sources", path=args.mt)
        label = "MT"
    else:
        lexicon = read_lexicon(args.lexicon)
        other = [literal_translation(s, lexicon) for s in corpus.src]
        label = "literal"
    scorer = build_scorer(args)
    with_other = scorer.score(corpus.src, other)
    with_ref = scorer.score(corpus.src, corpus.tgt)
    share = w2w_share(with_other.final, with_ref.final)
    metrics = {"w2w": share, "mean_score_ref": float(with_ref.final.mean()),
               f"mean_score_{label.lower()}": float(with_other.final.mean()), "n": float(len(corpus))}
    print(f"W2W ({label} preferred over the reference): {100 * share:.1f}% of {len(corpus)} sources; "
          f"mean score reference {with_ref.final.mean():.4f}, {label} {with_other.final.mean():.4f}")
    if with_ref.lm is not None:  # the same run without the LM term, and the LM term alone
        metrics.update({"w2w_without_lm": w2w_share(with_other.xmover, with_ref.xmover),
                        "mean_xmover_ref": float(with_ref.xmover.mean()),
                        f"mean_xmover_{label.lower()}": float(with_other.xmover.mean()),
                        "mean_lm_ref": float(with_ref.lm.mean()),
                        f"mean_lm_{label.lower()}": float(with_other.lm.mean())})
        print(f"  without the LM term: W2W {100 * metrics['w2w_without_lm']:.1f}%; mean LM "
              f"log-likelihood reference {metrics['mean_lm_ref']:.3f}, {label} "
              f"{metrics[f'mean_lm_{label.lower()}']:.3f}")
    print(with_ref.signature)
    if args.out:
        write_text(Path(args.out) / "metrics.json", json.dumps(metrics, indent=2, sort_keys=True))


def add_parsers(sub) -> None:
    score = sub.add_parser("score", help="XMoverScore of hypotheses against their sources")
    score.add_argument("--src", required=True, help="source sentences, one a line")
    score.add_argument("--hyp", required=True, help="hypotheses, one a line")
    add_scorer_arguments(score)
    score.set_defaults(func=cmd_score)


def build_evaluate_parser(kind: str) -> argparse.ArgumentParser:
    if kind == "rfeval":
        p = argparse.ArgumentParser(prog="crossalign evaluate rfeval",
                                    description="Correlation of metric scores with human judgments.")
        p.add_argument("--data", required=True, help="TSV: lp, src, mt, ref, score [, system]")
        p.add_argument("--scores", help="precomputed metric scores, one a line (else score now)")
        p.add_argument("--bootstrap", type=int, default=1000)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--out", help="folder for metrics.json")
        add_scorer_arguments(p)
        p._option_string_actions["--encoder"].required = False
        p.set_defaults(func=cmd_rfeval)
    else:
        p = argparse.ArgumentParser(prog="crossalign evaluate w2w",
                                    description="Share of sources where the metric prefers a literal "
                                    "word-by-word translation (or an MT output) over the reference.")
        p.add_argument("--src", required=True)
        p.add_argument("--ref", required=True)
        p.add_argument("--lexicon", help="FreeDict .index or TSV lexicon for the literal translation")
        p.add_argument("--mt", help="machine translations to compare instead of the literal one")
        p.add_argument("--out", help="folder for metrics.json")
        add_scorer_arguments(p)
        p.set_defaults(func=cmd_w2w)
    return p
