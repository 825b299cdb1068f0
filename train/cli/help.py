"""One help style for every verb: each option's help ends with its default."""
from __future__ import annotations

import argparse


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Appends ``(default: X)`` to an option's help unless the help already names a default,
    the default is empty, or the option is a flag."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) \
                or action.nargs == 0 or not action.option_strings:
            return text
        shown = " ".join(map(str, action.default)) if isinstance(action.default, list) \
            else action.default
        return f"{text} (default: {shown})".lstrip()


_REPEATABLE = (argparse._AppendAction, argparse._AppendConstAction, argparse._CountAction,
               argparse._ExtendAction, argparse._HelpAction, argparse._VersionAction,
               argparse._SubParsersAction)


class _Once:
    """An option that takes a value refuses a second one (argparse keeps the last silently:
    ``--row A --row B`` would score B alone); an option and its former name are one option."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        seen = namespace.__dict__.setdefault("_options_given", {})
        if self.dest in seen:
            also = "" if seen[self.dest] == option_string else f" (also as {seen[self.dest]})"
            parser.error(f"{option_string} is given twice{also}: give it once" + (
                ", with all its values" if self.nargs in ("+", "*") else ""))
        seen[self.dest] = option_string
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose sub-parsers and help use ``HelpFormatter`` and whose options
    that take a value are given at most once (``_Once``)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        for action in self._actions:  # groups' options too: they share this list
            if action.option_strings and action.nargs != 0 \
                    and not isinstance(action, (_Once, *_REPEATABLE)):
                action.__class__ = type(f"Once{type(action).__name__}", (_Once, type(action)), {})
        parsed, rest = super().parse_known_args(args, namespace)
        parsed.__dict__.pop("_options_given", None)
        return parsed, rest

    def error(self, message: str):
        """One line, as every other error: what is wrong and where the usage is (exit 2)."""
        self.exit(2, f"crossalign: error: {message} ({self.prog} --help shows the usage)\n")
