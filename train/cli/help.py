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


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose sub-parsers and help use ``HelpFormatter``."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        """One line, as every other error: what is wrong and where the usage is (exit 2)."""
        self.exit(2, f"crossalign: error: {message} ({self.prog} --help shows the usage)\n")
