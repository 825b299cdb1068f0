"""``crossalign evaluate``: retrieval / CBLI / lexicon P@1 of exports on held-out text (the
default task), ``evaluate wmt17 | mlqe | rfeval`` (agreement with human judgments, one per
registered benchmark: train/cli/named_benchmarks.py) and ``evaluate w2w``
(preference for literal translations), ``evaluate challenge`` (reference vs MT vs word-by-word
and perturbations). Each prints its table and, with ``--out``, writes it
with ``metrics.json``."""
from __future__ import annotations

import argparse

import numpy as np

from alignment.errors import InputError

from train.runs.reporting import check_report_dir, format_against, format_table, report
from .options import add_format_option, add_interval_options, add_old_name
from .scorer_options import add_scorer_options, build_scorer


VERBS = {"evaluate": "retrieval / CBLI / lexicon P@1 of exports on held-out text; `evaluate wmt17|mlqe|rfeval` (agreement with people), `evaluate w2w`, `evaluate challenge`"}

def run_retrieval(args: argparse.Namespace) -> None:
    from alignment.data.corpus import read_parallel
    from alignment.data.lexicon import read_lexicon, single_word_pairs
    from alignment.evaluation.held_out import evaluate_exports
    from alignment.evaluation.retrieval import columns

    check_report_dir(args.out)
    if not args.export or not args.src:
        raise InputError("give --encoder EXPORT... and --src (and --ref) held-out text, or a task: "
                         "evaluate wmt17 | mlqe | rfeval | w2w | challenge", parameter="export")
    if args.bootstrap < 1:
        raise InputError(f"must be >= 1, got {args.bootstrap}", parameter="bootstrap")
    corpus = read_parallel(args.src, args.tgt, args.fmt)
    lexicon = single_word_pairs(read_lexicon(args.lexicon)) if args.lexicon else None
    result = evaluate_exports(corpus, args.export, lexicon, args.csls, args.alignment,
                              args.bootstrap, args.seed)
    src, tgt = result.languages
    shown = [*columns(src, tgt), ("lexicon_unseen_p1", "unseen")] + (
        [("retrieval_csls_src2tgt", f"{src}→{tgt} CSLS"),
         ("retrieval_csls_tgt2src", f"{tgt}→{src} CSLS")] if args.csls else [])
    text = format_table(list(result.rows.items()), shown) + "\n"
    if result.differences:  # every export against the first, on the same sentences
        text += "\n" + format_against(result.first, result.differences, args.bootstrap,
                                       f"{src}→{tgt}", "test sentences")
    text += "\n" + "\n".join(f"{path}: {sig}" for path, sig in result.signatures.items())
    report(text, {f"{name}/{k}": v for name, m in result.rows.items() for k, v in m.items()},
           args.out, fmt=args.format,
           about={"task": "retrieval", "languages": [src, tgt], "signatures": result.signatures})


def run_w2w(args: argparse.Namespace) -> None:
    from alignment.data.corpus import read_lines, read_parallel
    from alignment.data.lexicon import read_lexicon
    from alignment.evaluation.w2w import literal_translation, w2w_metrics

    check_report_dir(args.out)
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
    result = w2w_metrics(build_scorer(args), corpus.src, corpus.tgt, other, label)
    metrics = result.metrics
    key = label.lower()
    lines = [f"W2W ({label} preferred over the reference): {100 * metrics['w2w']:.1f}% of "
             f"{len(corpus)} sources; mean score reference {metrics['mean_score_ref']:.4f}, "
             f"{label} {metrics[f'mean_score_{key}']:.4f}"]
    if "w2w_without_lm" in metrics:  # the same run without the LM term, and the LM term alone
        lines.append(f"  without the LM term: W2W {100 * metrics['w2w_without_lm']:.1f}%; mean LM "
                     f"log-likelihood reference {metrics['mean_lm_ref']:.3f}, {label} "
                     f"{metrics[f'mean_lm_{key}']:.3f}")
    lines.append(result.signature)
    report("\n".join(lines), metrics, args.out, fmt=args.format,
           about={"task": "w2w", "signature": result.signature})


def register(sub) -> None:
    ev = sub.add_parser("evaluate", help=VERBS["evaluate"],
                        epilog="Also: crossalign evaluate wmt17 --help, crossalign evaluate mlqe --help, crossalign evaluate rfeval --help, crossalign evaluate w2w --help, "
                        "crossalign evaluate challenge --help")
    ev.add_argument("--encoder", dest="export", nargs="+",
                    help="one or more crossalign exports (of any encoders); with several, each "
                    "is compared with the first, with a paired bootstrap interval")
    add_old_name(ev, "--export", "--encoder", "export", nargs="+")
    ev.add_argument("--src", help="held-out source text (or one TSV / fast_align file)")
    ev.add_argument("--tgt", dest="tgt", help="held-out target text, line by line "
                    "the translation of --src")
    add_old_name(ev, "--ref", "--tgt", "tgt")
    ev.add_argument("--input-format", dest="fmt", default="auto",
                    choices=["auto", "text", "tsv", "fast_align"],
                    help="format of the input files (auto: by content)")
    add_old_name(ev, "--fmt", "--input-format", "fmt", choices=["auto", "text", "tsv", "fast_align"])
    ev.add_argument("--alignment", help="Pharaoh file for CBLI (default: align with eflomal)")
    ev.add_argument("--lexicon", help="FreeDict .index or TSV lexicon for the lexicon check")
    ev.add_argument("--csls", action="store_true", help="also report CSLS retrieval")
    ev.add_argument("--bootstrap", type=int, default=1000,
                    help="bootstrap resamples for the intervals against the first export")
    ev.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ev.add_argument("--out", help="folder for table.txt and metrics.json")
    add_format_option(ev)
    ev.set_defaults(func=run_retrieval)
    tasks = ev.add_subparsers(dest="task", metavar="TASK")

    from .named_benchmarks import register_evaluate

    register_evaluate(tasks)

    w2w = tasks.add_parser("w2w", help="how often the metric prefers a literal translation",
                           description="Share of sources where the metric prefers a literal "
                           "word-by-word translation (or an MT output) over the reference.")
    w2w.add_argument("--src", required=True, help="source sentences, one a line")
    w2w.add_argument("--ref", required=True, help="reference translations, one a line")
    w2w.add_argument("--lexicon", help="FreeDict .index or TSV lexicon for the literal translation")
    w2w.add_argument("--mt", help="machine translations to compare instead of the literal one")
    w2w.add_argument("--out", help="folder for table.txt and metrics.json")
    add_format_option(w2w)
    add_scorer_options(w2w)
    w2w.set_defaults(func=run_w2w)

    from .challenge import register as register_challenge

    register_challenge(tasks)
