"""``crossalign evaluate challenge``: the offline meta-evaluation of XMoverScore (reference vs
apertium MT vs word-by-word, and meaning-changing perturbations), one row per encoder, version
and LM setting, with bootstrap intervals."""
from __future__ import annotations

import argparse
import copy

from alignment.errors import InputError

from train.runs.reporting import check_report_dir, report
from .options import add_format_option, add_interval_options

TESTS = [("ranking", "ref>MT>lit"), ("ref>mt", "ref>MT"), ("ref>literal", "ref>lit"),
         ("content", "content"), ("negation", "negation"), ("number", "number"),
         ("name", "name"), ("drop", "drop"), ("shuffle", "shuffle")]


def _system_name(scorer) -> str:
    if scorer.export_mapping is not None:
        return scorer.export_mapping.describe()
    return scorer.mapping_label or "unmapped"


def run(args: argparse.Namespace) -> None:
    from alignment.evaluation.challenge import build_challenge, evaluate_challenge
    from .runtime_options import runtime_of
    from .scorer_options import build_scorer

    if args.bootstrap < 1:
        raise InputError(f"must be >= 1, got {args.bootstrap}", parameter="bootstrap")
    check_report_dir(args.out)
    challenge = build_challenge(args.src, args.ref, args.lexicon, args.n, args.seed,
                                mt=args.mt, apertium_pair=args.apertium_pair)
    rows: list[tuple[str, dict]] = []
    metrics: dict[str, float] = {}
    signatures = []
    shared = runtime_of(args)  # the scorers of every row load an encoder once
    for encoder in args.encoder:
        for version in args.version:
            one = copy.copy(args)
            one.encoder, one.version = encoder, version
            scorer = build_scorer(one, runtime=shared)
            name = f"{_system_name(scorer)} · {version}"
            variants = evaluate_challenge(challenge, scorer, args.bootstrap, args.seed)
            for variant, summary in variants.items():
                rows.append((name + variant, summary))
                for test, s in summary.items():
                    for key in ("share", "lo", "hi"):
                        metrics[f"{name + variant}/{test}/{key}"] = s[key]
            signatures.append(scorer.signature)
    n_applicable = {test: rows[0][1][test]["n"] for test, _ in TESTS}
    lines = [f"Challenge set: {len(challenge)} sources; share (%) of sources where the metric "
             "ranks reference > MT > word-by-word, and each pair or perturbation "
             "below the reference (95% bootstrap interval over sources)",
             "applicable sources: " + ", ".join(f"{h} {n_applicable[t]}" for t, h in TESTS), ""]
    name_w = max(len(r[0]) for r in rows)
    lines.append("system".ljust(name_w) + "  " + "  ".join(h.rjust(17) for _, h in TESTS))
    lines.append("-" * len(lines[-1]))
    for name, summary in rows:
        cells = [f"{100 * summary[t]['share']:.1f} [{100 * summary[t]['lo']:.1f},"
                 f"{100 * summary[t]['hi']:.1f}]".rjust(17) for t, _ in TESTS]
        lines.append(name.ljust(name_w) + "  " + "  ".join(cells))
    lines += ["", challenge.signature, *signatures]
    report("\n".join(lines), metrics, args.out, fmt=args.format,
           about={"task": "challenge", "challenge": challenge.signature, "signatures": signatures})


def register(tasks) -> None:
    from .scorer_options import add_scorer_options

    p = tasks.add_parser("challenge", help="rank reference / apertium MT / word-by-word and "
                         "perturbed references (offline meta-evaluation of the metric)",
                         description="Offline meta-evaluation: how often the metric ranks the "
                         "reference above a rule-based MT above a word-by-word translation, and "
                         "each meaning-changing perturbation below the reference. The MT needs "
                         "apertium (apt-get install apertium-eng-spa); --mt none and no "
                         "--lexicon leave only the perturbation tests (any language).")
    p.add_argument("--src", required=True, help="source sentences")
    p.add_argument("--ref", required=True, help="reference translations (English)")
    p.add_argument("--lexicon",
                   help="FreeDict .index or TSV lexicon for the word-by-word translation "
                        "(without one, no word-by-word candidate)")
    p.add_argument("--mt", default="apertium", choices=["apertium", "none"],
                   help="the rule-based MT candidate, or none")
    p.add_argument("--apertium-pair", default="spa-eng",
                   help="apertium's mode for the source language (spa-eng, eu-en, ...)")
    p.add_argument("--n", type=int, help="only the first N pairs (default: all)")
    add_interval_options(p, seed_help="perturbations and bootstrap")
    p.add_argument("--out", help="folder for table.txt and metrics.json")
    add_format_option(p)
    add_scorer_options(p, many=True)
    p.set_defaults(func=run)
