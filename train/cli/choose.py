"""``crossalign choose``: the map, the LM weight and the sentence-term weight chosen on dev
judgments (a judgments TSV of your own, or a registered benchmark's dev split), and the chosen
export written with its card."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from alignment.errors import InputError

from .options import add_format_option
from .scorer_options import add_setting_options, check_grid, scorer_kwargs, term_weights

VERBS = {"choose": "choose the map and the LM and sentence weights on dev judgments; write the "
                   "chosen export with its card"}


def _dev_data(args: argparse.Namespace):
    """The benchmark, the judged dev segments ``--dev`` names (the first ``--max-per-pair`` of
    each pair, where given) and how the card names them."""
    bench, data, dev = _all_dev_data(args)
    n = args.max_per_pair
    if n is None:
        return bench, data, dev
    seen: dict[str, int] = {}
    keep = []
    for i, pair in enumerate(data.lp):
        seen[pair] = seen.get(pair, 0) + 1
        if seen[pair] <= n:
            keep.append(i)
    return bench, data.subset(keep), f"{dev}, the first {n} segments of each pair"


def _all_dev_data(args: argparse.Namespace):
    from alignment.judgments import BENCHMARKS, get_benchmark

    if args.dev in BENCHMARKS:
        bench = get_benchmark(args.dev)
        if "dev" not in bench.splits:
            raise InputError(f"{bench.name} has no dev split (it has {list(bench.splits)}); "
                             "choose on dev judgments, never on a test set", parameter="dev")
        data_path = args.data or bench.default_data
        return bench, bench.load(Path(data_path), "dev", args.pairs), f"{bench.name} dev"
    path = Path(args.dev)
    if not path.is_file():
        raise InputError(f"'{args.dev}' is neither a judgments TSV nor a benchmark with a dev "
                         f"split ({', '.join(b for b in BENCHMARKS if 'dev' in BENCHMARKS[b].splits)})",
                         parameter="dev")
    bench = get_benchmark("rfeval")
    return bench, bench.load(path, "test", args.pairs), path.name


def run(args: argparse.Namespace) -> None:
    from alignment.atomic import check_output_dir
    from alignment.evaluation.metrics import get_metric
    from alignment.export.remapped import REMAP_FILE
    import tempfile

    from alignment.judgments.dev_choice import (choose_on_dev, chosen_config, identity_export,
                                                write_chosen)
    from alignment.judgments.dev_scores import score_dev
    from alignment.judgments.row_spec import parse_row
    from alignment.xmover.scorer import is_export

    from .option_modes import CHOOSE, check_modes

    check_modes("choose", CHOOSE, args)
    check_grid(args)  # before anything loads or is scored
    if args.max_per_pair is not None and args.max_per_pair < 1:
        raise InputError(f"must be at least 1, got {args.max_per_pair}", parameter="max-per-pair")
    if args.lm and not args.lm_weights == [0.0]:
        from alignment.export.recipe_options import MODEL_NAME

        if Path(args.lm).exists() or not MODEL_NAME.fullmatch(args.lm):
            raise InputError(f"'{args.lm}': the chosen export's scoring configuration names its "
                             "LM, so that it loads wherever the export goes: give the LM by "
                             "name (NAME or ORG/NAME, as `crossalign lm` lists them)",
                             parameter="lm")
    if args.labels and len(args.labels) != len(args.candidates):
        raise InputError(f"{len(args.labels)} labels for {len(args.candidates)} candidates",
                         parameter="labels")
    bench, data, dev = _dev_data(args)
    outs = {p: Path(args.out) if len(data.pairs) == 1 else Path(args.out) / p
            for p in data.pairs}
    for pair, out in outs.items():  # before anything is scored
        check_output_dir(out, REMAP_FILE, inputs=tuple(args.candidates))
    rows = [parse_row(spec, data.pairs, (args.labels or [None] * len(args.candidates))[k])
            for k, spec in enumerate(args.candidates)]
    if len({r.label for r in rows}) != len(rows):
        raise InputError("two candidates have the same label: give --labels", parameter="labels")
    options = {k: v for k, v in scorer_kwargs(args).items()
               if k not in ("weights", "setting")}
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    with_sentence = any(w > 0 for w in args.sentence_weights)
    searched = term_weights(args, many=True)
    scores = score_dev(bench, data, rows, options, args.lm, with_sentence, log, tuple(searched))
    selection = choose_on_dev(data, scores.rows, scores.lm, scores.sentence,
                              tuple(args.lm_weights), tuple(args.sentence_weights),
                              terms=scores.terms, term_weights=searched, xmover=args.xmover_weight)
    command = " ".join(shlex.quote(a) for a in args.command_line)
    chosen = next(r for r in rows if r.label == selection.chosen.row)
    for pair, out in outs.items():
        source = chosen.encoder_for(pair)
        with tempfile.TemporaryDirectory(prefix="crossalign-identity-") as scratch:
            if not is_export(source):  # the unmapped encoder won: an identity export of it
                source = identity_export(scores.scorers[(chosen.label, pair)].encoder, pair,
                                         Path(scratch) / "export")
            config = chosen_config(selection, dev, args.lm, options, "")
            if args.calibrate:
                config = replace(config, calibration=_calibration(bench, dev, data, selection,
                                                                  pair))
            # the signature ``score --encoder OUT`` gives: the output's scorer, as it loads it
            # (its precision is the runtime's, in ``options``), calibrated as it keeps
            configured = {k: v for k, v in config.scorer_options().items() if k != "precision"}
            scorer = get_metric("xmoverscore").build(
                source, languages=tuple(pair.split("-")),
                **{**options, **configured, "setting": "none"})
            scorer.calibration = config.calibration
            signed = scorer.signature
            write_chosen(out, Path(source), selection, pair,
                         config.with_measured(replace(config.measured, signature=signed)),
                         command, scores.signatures, chosen.label in scores.mapped)
    c = selection.chosen
    if args.format == "json":
        print(json.dumps({**selection.as_dict(), "out": {p: str(o) for p, o in outs.items()},
                          "signatures": scores.signatures}, indent=1, ensure_ascii=False))
        return
    print(f"chosen on {dev} ({selection.segments} segments): {c.label()}, dev Pearson "
          f"{c.pearson:.3f} (searched {len(selection.grid)} settings)")
    for pair, out in outs.items():
        print(f"  {pair}: {out} (card: {out / 'README.md'})")


def _calibration(bench, dev: str, data, selection, pair: str):
    """The chosen setting's calibration for ``pair``: fitted on that pair's dev segments."""
    import numpy as np

    from alignment.xmover.calibration import Calibration

    mask = np.asarray(data.lp) == pair
    return Calibration.fit(selection.chosen_scores[mask], data.human[mask],
                           bench.scale, f"{dev} {pair}")


def register(sub) -> None:
    p = sub.add_parser("choose", help=VERBS["choose"],
                       description="Score every candidate, the LM and the sentence-level term "
                       "on dev judgments, choose the candidate and the weights with the best "
                       "mean per-pair Pearson, and write the chosen export (one per pair) with "
                       "a card: the row chosen, the grid searched, the dev Pearson, the command.",
                       epilog="examples:\n  crossalign choose --dev mlqe --data data/mlqe --pairs "
                       "et-en --candidates multilingual-e5-small-q4 runs/clp/export --labels "
                       "unmapped clp --lm smollm2-135m --out exports-mine/et-en\n"
                       "  crossalign choose --dev my_dev.tsv --candidates EXPORT_A EXPORT_B --out "
                       "chosen")
    p.add_argument("--dev", required=True, help="a judgments TSV (lp, src, mt, score) or a "
                   "benchmark with a dev split (mlqe)")
    p.add_argument("--data", help="the benchmark's data folder (default: its own)")
    p.add_argument("--pairs", nargs="+", metavar="PAIR", help="only these pairs")
    p.add_argument("--max-per-pair", type=int, metavar="N", help="choose on the first N dev "
                   "segments of each pair only (a quicker choice where a term is slow, as "
                   "Gemma's are on a CPU; the card says so)")
    p.add_argument("--candidates", nargs="+", required=True, metavar="ROW",
                   help="the rows to choose among, as evaluate's --encoder takes them: an export "
                   "or encoder (an encoder stands for the unmapped row), PAIR=EXPORT,…, or a "
                   "folder of exports named by pair")
    p.add_argument("--labels", nargs="+", help="a name for each candidate")
    p.add_argument("--calibrate", action="store_true", help="also fit each chosen export's "
                   "calibration on its pair's dev judgments (least squares, scale × score + "
                   "offset): its scores come out on the judgments' scale (MLQE-PE: DA "
                   "z-scores), comparable across pairs; no pair's Pearson changes")
    p.add_argument("--lm", help="causal LM for the fluency term (e.g. smollm2-135m); without it "
                   "the LM weight is 0")
    add_setting_options(p, reuse_default=True, grid=True)
    p.add_argument("--out", required=True, help="the chosen export (with several pairs: a "
                   "folder of exports named by pair); new, empty, or a previous output")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    add_format_option(p)
    p.set_defaults(func=run)
