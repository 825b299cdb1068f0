"""``crossalign methods``: every registered method and preset, one line each."""
from __future__ import annotations

import argparse

VERBS = {"methods": "list the registered methods and presets (names for --method)"}


def run(args: argparse.Namespace) -> None:
    from alignment.mappings import METHODS, PRESETS

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


def register(sub) -> None:
    p = sub.add_parser("methods", help=VERBS["methods"])
    p.set_defaults(func=run)
