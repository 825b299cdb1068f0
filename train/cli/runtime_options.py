"""How a scorer runs, apart from what it computes: the options that make its ``Runtime``
(device, precision, batch size, processes, and what it keeps: ``--reuse``/``--no-reuse``),
declared once for every verb that scores."""
from __future__ import annotations

import argparse


def add_runtime_options(p: argparse.ArgumentParser, reuse_default: bool = False) -> None:
    """``--precision``, ``--reuse``/``--no-reuse``, ``--batch-size``, ``--device``, ``--jobs``
    (the judged tasks reuse by default, as their loop re-scores the same text)."""
    p.add_argument("--precision", choices=["auto", "fp32", "bf16", "int8"],
                   help="arithmetic of the encoder, the LM and the LM terms: auto (default: bf16 "
                   "where the device multiplies it natively — a GPU, a CPU with AVX-512 BF16 or "
                   "AMX — else fp32; $CROSSALIGN_PRECISION=fp32|bf16 pins it), fp32 (the "
                   "cards' numbers to the digit), bf16 (within ±.001 of fp32's agreement with "
                   "people on every measured pair, about 2x faster on such a CPU: docs/scale.md) or "
                   "int8 (opt-in, CPU only: 1.3-1.4x faster, and it lowered agreement with people "
                   "by .01-.08 Pearson on WMT17 and MLQE-PE); the signature says prec:bf16 / "
                   "prec:int8")
    p.add_argument("--reuse", dest="reuse", action="store_true", default=reuse_default,
                   help="keep token vectors, sentence vectors and LM scores in the cache "
                   "($CROSSALIGN_CACHE/reuse) and read them back when the same sentences are "
                   "scored again by the same encoder or LM (the same numbers)"
                   + (" (default)" if reuse_default else ""))
    p.add_argument("--no-reuse", dest="reuse", action=_NoReuse, nargs=0,
                   help="compute everything afresh, the registered terms' values (kept "
                   "otherwise) included" + ("" if reuse_default else " (default)"))
    p.set_defaults(no_reuse=False)
    p.add_argument("--batch-size", type=int, default=64, help="sentences per encoder batch")
    p.add_argument("--device", help="cpu, cuda, cuda:1, … (default: a GPU if there is one)")
    p.add_argument("--jobs", type=int, help="processes solving transport problems (default: all "
                   "cores above two, else one)")


class _NoReuse(argparse.Action):
    """``--no-reuse``: reuse off, and said explicitly (the terms' kept values stop too)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        namespace.reuse, namespace.no_reuse = False, True


def keep_values(args: argparse.Namespace) -> bool:
    """Whether the slow terms' values are kept across runs: unless ``--no-reuse`` was the
    last of the two flags."""
    return bool(args.reuse) or not getattr(args, "no_reuse", False)


def speed_options(args: argparse.Namespace):
    """The reuse folder the parsed flags ask for, or None."""
    from alignment.xmover.reuse import default_reuse

    return default_reuse(args.reuse)


def runtime_of(args: argparse.Namespace):
    """The scorer's ``Runtime`` the options give (``--words``: it remembers the score's
    encodings for the word pass)."""
    from alignment.terms import Runtime

    return Runtime.of(args.device, args.precision, args.batch_size, args.jobs,
                      speed_options(args), keep_values(args),
                      remember=bool(getattr(args, "words", False)))
