"""The ``crossalign`` command line: one module per verb, one dispatch path. Each verb module
has ``register(subparsers)``, which adds its parser and sets ``func``; handlers only call
library and experiment functions."""
from __future__ import annotations

import argparse
import os
import pickle
import sys

from alignment.errors import InputError, TrainingDiverged

from . import align, data, encode, evaluate, experiments, export, fit, lm, plot, score

VERBS = (data, align, encode, fit, export, evaluate, score, lm, experiments, plot)
EXIT_INPUT, EXIT_DIVERGED, EXIT_INTERRUPTED = 2, 3, 130


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crossalign", description="Train, export and evaluate "
                                "cross-lingual remappings of multilingual encoders.")
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb in VERBS:
        verb.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one verb; exit 0, 2 on bad input, 3 when training diverged, 130 on Ctrl-C — each
    failure as one line on stderr."""
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("WANDB_MODE", "offline")  # a wandb logger in a recipe stays local
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "takes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        args.func(args, *([extra] if getattr(args, "takes_extra", False) else []))
    except InputError as err:
        print(f"crossalign: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    except TrainingDiverged as err:
        where = f"parameter '{err.parameter}': " if err.parameter else ""
        print(f"crossalign: error: {where}{err}", file=sys.stderr)
        return EXIT_DIVERGED
    except pickle.UnpicklingError as err:
        first = str(err).strip().splitlines()[0]
        print("crossalign: error: refused to load a checkpoint that holds more than weights "
              f"(loading it could run code): {first}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("crossalign: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0
