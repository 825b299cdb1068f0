"""``crossalign score``: XMoverScore of hypotheses against their sources — per segment and for
the system, signed; as text, JSON or TSV, from files or standard input."""
from __future__ import annotations

import argparse
import sys

from alignment.errors import InputError

from .score_output import paired_differences, render, render_words
from .options import add_old_name
from .option_modes import check_modes, score_mode
from .scorer_options import add_scorer_options, build_scorer, check_scorer_options
from .score_metric import add_metric_options, run_metric, wants_other_metric, check_metric_options
from .score_shards import add_shard_options, check_shard_options, in_shards, run_in_shards

VERBS = {"score": "XMoverScore of hypotheses against their sources (no reference needed)"}
PROGRESS_FROM = 100  # pairs; below this a run takes seconds and shows no bars


def run(args: argparse.Namespace) -> None:
    from alignment.data.corpus import STDIN, read_lines
    from alignment.encoding.encoder import truncation_message
    from alignment.evaluation.language_check import looks_like_other
    from alignment.xmover.scorer import truncated_lines

    from alignment.xmover.stages import Laps, process_seconds

    setup = {"start-up (imports, the command line)": process_seconds()}
    laps = Laps(setup)
    if args.encoder is None:
        args.encoder = _export_for_languages(args)
    check_modes("score", score_mode(args), args)  # an option the mode ignores: refused first
    check_metric_options(args)
    if wants_other_metric(args):
        return run_metric(args)
    check_shard_options(args)
    if in_shards(args):
        check_scorer_options(args)
        return run_in_shards(args)
    names = list(args.hyp)
    check_inputs(args, names)
    check_scorer_options(args)
    src = read_lines(args.src)
    systems = [read_lines(h, allow_empty=True) for h in names]
    for name, hyp in zip(names, systems):
        if len(src) != len(hyp):
            raise InputError(f"line counts differ: {args.src} has {len(src)}, {name} has "
                             f"{len(hyp)}", path=name if len(hyp) < len(src) else args.src,
                             line=min(len(src), len(hyp)) + 1)
    laps.lap("reading the inputs")
    scorer = build_scorer(args, quiet=args.quiet, consensus=args.consensus)
    laps.lap("building the scorer (export, encoder, map)")
    if scorer.languages and not args.quiet:
        s, t = scorer.languages
        checks = [("--src", src, s, t)] + [(f"--hyp {n}" if len(names) > 1 else "--hyp", h, t, s)
                                           for n, h in zip(names, systems)]
        for name, lines, want, other in checks:
            if looks_like_other(lines, want, other):
                print(f"crossalign: warning: {name} looks like {other} text, not {want} (this "
                      f"scorer maps {s}→{t}): are --src and --hyp swapped?", file=sys.stderr)
    progress = not args.quiet and len(src) * len(names) >= PROGRESS_FROM
    words = None
    if args.words:  # the word pass answers its encodings from the score's pass (the scorer's
        # runtime remembers them: ``scorer_kwargs``)
        from alignment.xmover.words import WordScorer, default_weights, parse_weights

        words = WordScorer(scorer, parse_weights(args.word_weights) if args.word_weights
                           else default_weights(), args.word_pool)
    results = scorer.score_systems(src, systems, progress=progress, warn=False)
    if not args.quiet:
        files = {"sources": args.src, "hypotheses": names[0],
                 **{f"system {k}": n for k, n in enumerate(names, start=1)}}
        for where, lines in truncated_lines(results).items():
            print(f"crossalign: note: {truncation_message(lines, scorer.encoder.max_length, files[where])}",
                  file=sys.stderr)
        for name, result in zip(names, results):
            if result.empty_hypotheses:
                print(f"crossalign: note: {result.empty_hypotheses} of {len(src)} hypotheses "
                      f"{'in ' + name + ' ' if len(names) > 1 else ''}are empty; scored as the "
                      "formula defines them (special tokens only)", file=sys.stderr)
    if words is not None:
        explained = words.explain(src, systems[0], progress=progress)
        print(render_words(results[0], explained, args.format, words.signature,
                           words.mark_threshold if args.word_threshold is None
                           else args.word_threshold))
        return
    differences, bootstrap = None, None
    if args.paired_bs:
        bootstrap = {"n": args.paired_bs_n, "seed": args.seed, "level": 0.95}
        differences = paired_differences(results, args.paired_bs_n, args.seed)
    labels = ["stdin" if n == STDIN else n for n in names]
    print(render(results, labels, args.format, args.score_only, differences, bootstrap))
    if args.timings:
        print_timings(results, scorer, len(src), setup)
    if args.score_only and args.format != "json" and not args.quiet:
        print(f"# {results[0].signature}", file=sys.stderr)


def print_timings(results, scorer, segments: int, setup: dict[str, float]) -> None:
    """``--timings``: the seconds of each stage of this run on stderr, the LMs' passes split
    into tokenising, their layers and their output layer, and what no stage accounts for."""
    from alignment.xmover.stages import process_seconds, timings_table

    seconds = dict(setup)
    for result in results:
        for stage, value in result.seconds.items():
            seconds[stage] = value if stage == "sources" else seconds.get(stage, 0.0) + value
    lms = {lm.name: lm.seconds for lm in [*scorer.runtime.cache.models.values(), scorer.lm]
           if lm is not None}
    inside = [f"{name} {stage}: {value:.2f} s" for name, parts in lms.items()
              for stage, value in parts.items()]
    print(timings_table(seconds, segments * len(results), process_seconds())
          + ("\nof which the LMs' passes: " + ", ".join(inside) if inside else ""),
          file=sys.stderr)


def check_inputs(args: argparse.Namespace, names: list[str]) -> None:
    """Input combinations refused before anything loads."""
    from alignment.data.corpus import STDIN

    if args.words and (len(names) > 1 or args.score_only):
        raise InputError("word scores are for one --hyp file and every segment (no -b)",
                         parameter="words")
    if args.words and args.read not in (None, "given"):
        raise InputError("word scores name the words of the output as given: --words reads "
                         "it as given (leave out --read written)", parameter="read")
    if args.words:  # over an export's reading, said by the signature's over:
        args.read = "given"
    from alignment.xmover.words import check_word_request

    check_word_request(args.words, args.word_weights, args.word_threshold, args.lm)

    if [args.src, *names].count(STDIN) > 1:
        raise InputError("only one of --src and --hyp can be read from standard input",
                         parameter="hyp")
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise InputError(f"{twice} is given twice", parameter="hyp")
    if args.paired_bs and len(names) < 2:
        raise InputError("compares systems: give two or more --hyp files (the first is the "
                         "baseline)", parameter="paired-bs")
    if args.consensus and len(names) < 3:
        raise InputError("the consensus term compares each system with the others: give three "
                         "or more --hyp files", parameter="consensus")
    if args.paired_bs_n < 1:
        raise InputError("must be >= 1", parameter="bootstrap")


def _export_for_languages(args: argparse.Namespace) -> str:
    """No ``--encoder``: the export for ``--src-lang``-``--tgt-lang`` whose card measured best,
    said in a note; without the languages, refused (crossalign does not guess them)."""
    from alignment.export.named import export_for_pair

    if not (args.src_lang and args.tgt_lang):
        raise InputError("give --encoder, or --src-lang and --tgt-lang to score with the export "
                         "for that pair whose card measured best", parameter="encoder")
    entry = export_for_pair(f"{args.src_lang}-{args.tgt_lang}")
    if not args.quiet:
        print(f"crossalign: note: scoring with {entry.name}, the export for {entry.pair} whose "
              f"card measured best ({entry.agreement or 'not measured'})", file=sys.stderr)
    return entry.name


def register(sub) -> None:
    p = sub.add_parser("score", help=VERBS["score"],
                       description="XMoverScore of each hypothesis against its source, and the "
                       "system score (their mean), with a signature saying how it was made.",
                       epilog="examples:\n"
                       "  crossalign score --encoder bible/es-en --src test.es "
                       "--hyp test.en\n"
                       "  crossalign score --src test.de --hyp mt.en --src-lang de --tgt-lang en"
                       "   # the pair's export whose card measured best\n"
                       "  my_mt < test.es | crossalign score --encoder EXPORT --src test.es "
                       "--hyp - --format json\n"
                       "  crossalign score --encoder EXPORT --src test.es --hyp base.en new.en "
                       "--paired-bs\n"
                       "  crossalign score --encoder EXPORT --src test.de --hyp A.en B.en C.en "
                       "--consensus\n"
                       "  crossalign score --encoder EXPORT --pairs-file big.tsv --devices 2 "
                       "--shards run/   # in shards, resumable\n"
                       "  crossalign score --encoder EXPORT --metric moverscore-v2 --ref ref.en "
                       "--hyp mt.en")
    p.add_argument("--src", help="source sentences, one a line ('-': stdin)")
    p.add_argument("--hyp", nargs="+", metavar="HYP",
                   help="hypotheses (MT output), one a line ('-': stdin); empty lines are "
                   "scored. Several files: several systems, the sources encoded once")
    p.add_argument("--format", default="text", choices=["text", "json", "tsv"],
                   help="text: one score a line and '# mean …  signature' (several systems: "
                   "a table); json: segments, system, signature, counts; tsv: a header, a row a "
                   "segment and a 'mean' row per system, then '# signature'")
    p.add_argument("-b", "--score-only", action="store_true",
                   help="print the system score only, one a line per system (the signature "
                   "goes to stderr)")
    p.add_argument("--paired-bs", action="store_true",
                   help="paired bootstrap: each system's difference from the first (the "
                   "baseline) with a 95%% interval")
    p.add_argument("--bootstrap", dest="paired_bs_n", type=int, default=1000,
                   help="bootstrap resamples (default: 1000)")
    add_old_name(p, "--paired-bs-n", "--bootstrap", "paired_bs_n", type=int)
    p.add_argument("--consensus", action="store_true",
                   help="several systems: add to each score the consensus term (chrF against "
                   "the other systems' outputs of the same source), both standardised over all "
                   "systems' segments and summed; scores are then in standard units")
    p.add_argument("--words", action="store_true",
                   help="also say which words are wrong: a score for every word of the "
                   "hypothesis and of the source (whitespace tokens; higher: more likely an "
                   "error); text marks [[words]] above --word-threshold, json adds 'words', "
                   "tsv gives a row a word. The sentence scores are unchanged")
    p.add_argument("--word-weights", metavar="TERM=W,…",
                   help="weights of the word terms: transport, nearest, surprisal (the last "
                   "needs --lm; default: nearest=1,surprisal=0.02, chosen on Eval4NLP dev)")
    p.add_argument("--word-pool", choices=["max", "sum"], default="max",
                   help="how a word's subword values become one (default: max)")
    p.add_argument("--word-threshold", type=float,
                   help="text view: mark words scoring above this (default: the threshold "
                   "with the best MCC on Eval4NLP dev for the default weights, with or without "
                   "the LM)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument("--timings", action="store_true",
                   help="also print on stderr where the time went: the seconds of each stage "
                   "(encoding, transport, sentence vectors, each term; an LM's tokenising, "
                   "layers and output layer) and what no stage accounts for")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no notes, warnings or progress on stderr (errors still)")
    add_scorer_options(p, encoder_required=False)
    add_shard_options(p)
    add_metric_options(p)
    p.set_defaults(func=run)
