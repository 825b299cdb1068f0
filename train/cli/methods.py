"""``crossalign methods``: every registered method and preset, one line each; ``crossalign
methods NAME``: one method's settings with their defaults, and the data it trains on."""
from __future__ import annotations

import argparse

VERBS = {"methods": "list the registered methods and presets (names for --method)"}


def run(args: argparse.Namespace) -> None:
    from alignment.mappings import METHODS, PRESETS

    if args.name:
        print(describe(args.name))
        return
    width = max(map(len, [*METHODS, *PRESETS])) + 2
    print("methods (compose closed-form ones with '>', e.g. \"center > clp\"; a trained method "
          "comes last and takes settings, e.g. \"realnvp:lr=1e-4\"):")
    for name, m in METHODS.items():
        kind = "trained" if m.trained else "closed form"
        aliases = f" (also: {', '.join(m.aliases)})" if m.aliases else ""
        print(f"  {name:<{width}}{kind:<13}{m.summary}{aliases}")
    print("presets (a name for a whole method string; settings may be added: "
          "\"clp_flow:lr=1e-4\"):")
    for name, p in PRESETS.items():
        print(f"  {name:<{width}}{p.summary}\n  {'':<{width}}= {p.method}")


def describe(name: str) -> str:
    """One method or preset: what it is, the data it needs, and every setting with its
    default (what ``name:key=value`` may change)."""
    import inspect
    import typing

    from alignment.errors import InputError
    from alignment.mappings import PRESETS, parse_method
    from train.fitting.fitters import fitter_class, fitter_settings

    try:
        spec = parse_method(name)
    except InputError as err:
        raise InputError(str(err).removeprefix(f"parameter '{err.parameter}': "),
                         parameter="name") from None
    lines = [f"{spec.label}"]
    preset = PRESETS.get(name.split(":")[0].strip())
    if preset is not None:
        lines.append(f"  preset: {preset.summary}\n  = {preset.method}")
    if spec.trained is None:
        lines.append("  closed form: fitted in one solve from word pairs; no settings")
        return "\n".join(lines)
    cls = fitter_class(spec)
    lines.append("  trains on: " + spec.data.describe())
    params = inspect.signature(cls.__init__).parameters
    hints = typing.get_type_hints(cls.__init__)
    given = {**spec.trained.defaults, **spec.overrides}
    lines.append("  settings (name:key=value,…; default, or the value this variant sets *):")
    for key in sorted(fitter_settings(spec)):
        value = given.get(key, params[key].default)
        kind = getattr(hints.get(key), "__name__", None) or str(hints.get(key, "")).replace(
            "typing.", "")
        mark = " *" if key in spec.overrides else ""
        lines.append(f"    {key:<20} {value!s:<16} {kind}{mark}")
    return "\n".join(lines)


def register(sub) -> None:
    p = sub.add_parser("methods", help=VERBS["methods"],
                       description="The registered methods and presets; with a NAME, that "
                       "method's settings and their defaults.",
                       epilog="examples:\n  crossalign methods\n  crossalign methods realnvp\n"
                       "  crossalign methods clp_flow")
    p.add_argument("name", nargs="?", help="a method, preset or method string to describe")
    p.set_defaults(func=run)
