"""Command-line options generated from config dataclasses, so defaults and help live in one
place (the dataclass) and the parser never restates them."""
from __future__ import annotations

import argparse
import dataclasses
import math
import types
import typing
from typing import Any, Callable


# help for fields that mean the same in every config; a field's own ``metadata['help']`` wins
COMMON_HELP = {
    "seed": "random seed (same seed, same numbers)", "seeds": "seeds, one run each",
    "out_dir": "output folder (table.txt, metrics.json, runs)", "data_dir": "the Bible corpus",
    "epochs": "training epochs", "lr": "learning rate", "batch_size": "examples per step",
    "train_verses": "training verses used", "test_verses": "held-out verses",
    "bootstrap_samples": "bootstrap resamples for the intervals",
    "vocab_size": "BPE vocabulary size", "layers": "transformer layers", "width": "hidden width",
    "heads": "attention heads", "context": "context length (tokens)",
    "val_fraction": "share of the data held out for validation",
    "muse_epochs": "epochs of the MUSE-style route", "gan_epochs": "epochs of GAN-Real-NVP",
}


def _flag(f: dataclasses.Field) -> str:
    return "--" + f.metadata.get("flag", f.name).replace("_", "-")


def _unwrap_optional(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else str
    return tp


def add_dataclass_options(parser: argparse.ArgumentParser, cls: type,
                          skip: tuple[str, ...] = ()) -> None:
    """One ``--kebab-case`` option per field of ``cls`` (``metadata['flag']`` renames it,
    ``metadata['help']`` describes it, ``metadata['old']`` is a former name still accepted); a
    bool that defaults to True becomes ``--no-NAME``."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        tp = _unwrap_optional(hints[f.name])
        help_ = f.metadata.get("help", COMMON_HELP.get(f.name, "")).replace("%", "%%")
        if tp is bool:
            if default:
                parser.add_argument("--no-" + f.metadata.get("flag", f.name).replace("_", "-"),
                                    dest=f.name, action="store_false",
                                    help=f"turns off what is on by default: {help_}")
            else:
                parser.add_argument(_flag(f), dest=f.name, action="store_true", help=help_)
            continue
        kwargs: dict[str, Any] = {"dest": f.name, "default": default}
        if typing.get_origin(tp) is list:
            (item,) = typing.get_args(tp)
            kwargs.update(nargs="+", type=item)
        else:
            kwargs["type"] = tp
        shown = " ".join(map(str, default)) if isinstance(default, list) else default
        parser.add_argument(_flag(f), metavar=f.metadata.get("flag", f.name).upper(),
                            help=f"{help_} (default: {shown})".lstrip(), **kwargs)
        if "old" in f.metadata:
            add_old_name(parser, "--" + f.metadata["old"].replace("_", "-"), _flag(f), f.name,
                         **{k: v for k, v in kwargs.items() if k in ("type", "nargs")})


def add_experiment_verb(sub, verbs: dict[str, str], config: type, runner: Callable) -> None:
    """The parser of a verb that runs one experiment (``verbs``: the module's one-entry VERBS):
    the fields of its ``config`` dataclass are the options, and ``runner`` gets the config."""
    (verb, help_), = verbs.items()
    p = sub.add_parser(verb, help=help_)
    add_dataclass_options(p, config)
    p.set_defaults(func=lambda args: runner(dataclass_from_args(config, args)))


def dataclass_from_args(cls: type, args: argparse.Namespace, **fixed: Any) -> Any:
    """Build ``cls`` from the parsed options (``fixed`` for fields the command sets itself),
    every value range-checked first (``check_values``)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls)
              if hasattr(args, f.name)}
    cfg = cls(**{**values, **fixed})
    check_values(cfg)
    return cfg


def check_values(cfg: Any) -> None:
    """Refuse, naming the option, a number that is not finite or below its field's minimum —
    ``metadata['min']``, else 1 for a count whose default is at least 1 (epochs, rounds,
    verses, tokens), none where the default is negative (``--layer -1``), else 0 — and an
    output folder that is a file; before any work."""
    from alignment.errors import InputError

    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        flag = _flag(f)
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        first = default[0] if isinstance(default, list) and default else default
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                continue
            if not math.isfinite(item):
                raise InputError(f"must be a finite number, got {item}", parameter=flag)
            counts = isinstance(first, int) and not isinstance(first, bool)
            low = f.metadata.get("min", None if isinstance(first, (int, float)) and first < 0
                                 else 1 if counts and first >= 1 else 0)
            if low is not None and item < low:
                raise InputError(f"must be >= {low}, got {item}", parameter=flag)
        if f.name == "out_dir" and isinstance(value, str):
            from pathlib import Path

            existing = next((p for p in (Path(value), *Path(value).parents) if p.exists()), None)
            if existing is not None and not existing.is_dir():
                raise InputError(f"{value} cannot be a folder: {existing} is a file",
                                 parameter=flag)


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format text|json``: what every table-printing verb without its own TSV prints."""
    parser.add_argument("--format", choices=["text", "json"], default="text",
                        help="the text table, or one JSON object (the metrics and signatures)")


def add_interval_options(parser: argparse.ArgumentParser, seed_help: str = "bootstrap seed") -> None:
    """A task's ``--bootstrap``/``--seed``: given before or after the task's name, either counts
    (the task leaves ``evaluate``'s value alone unless the option is given after it)."""
    parser.add_argument("--bootstrap", type=int, default=argparse.SUPPRESS,
                        help="bootstrap resamples for the CIs (default: 1000)")
    parser.add_argument("--seed", type=int, default=argparse.SUPPRESS,
                        help=f"{seed_help} (default: 0)")


def align_seed(text: str) -> int | None:
    """``--align-seed``: eflomal's sampler seed, a whole number >= 0, or ``none`` (unseeded)."""
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number or 'none'") from None
    if not 0 <= value < 2 ** 63:
        raise argparse.ArgumentTypeError(f"{value} is not in [0, 2^63)")
    return value


ALIGN_SEED_HELP = ("eflomal's sampler seed (default 0; 'none': unseeded, links then vary from "
                   "run to run); the same text and seed give the same links on every machine")


class OldName(argparse.Action):
    """A former spelling of an option (hidden from help): sets the same value and leaves a
    note, which ``main`` prints once unless the verb is quiet."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        notes = list(getattr(namespace, "old_names", None) or [])
        notes.append(f"{option_string} is now {self.new} (the old name still works)")
        namespace.old_names = notes


def add_old_name(parser: argparse.ArgumentParser, old: str, new: str, dest: str,
                 **kwargs: Any) -> None:
    """Accept ``old`` as a hidden alias of ``new`` (same ``dest``, same type and choices)."""
    parser.add_argument(old, dest=dest, action=OldName, new=new, help=argparse.SUPPRESS,
                        default=argparse.SUPPRESS, **kwargs)


def lightning_device(device: str, parameter: str = "device") -> tuple[str, int | list[int]]:
    """``--device`` (auto, cpu, gpu, cuda, cuda:N, mps) as Lightning's accelerator and
    devices; a GPU this machine lacks is refused before anything loads."""
    name = device.strip().lower()
    if name == "auto":
        return "auto", 1
    from alignment.encoding.device import resolve_device

    resolved = resolve_device(name, parameter)
    if resolved.type == "cuda":
        return "gpu", [resolved.index] if resolved.index is not None else 1
    return resolved.type, 1
