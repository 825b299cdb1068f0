"""The ``crossalign`` command line: one module per verb, one dispatch path. Each verb module
names its verbs and their one-line help in ``VERBS`` and has ``register(subparsers)``, which
adds its parsers and sets ``func``; handlers only call library and experiment functions.

Only the verb being run is built (its module may import torch or Lightning); the others appear
in ``crossalign --help`` from their ``VERBS`` line alone, so help and errors come fast."""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import pickle
import signal
import sys
import threading

from alignment.errors import InputError, TrainingDiverged
from alignment.version import __version__

from . import (align, choose, compare, data, demo, encode, evaluate, export, exports, fit,
               joint_align, lm, methods, plot, score, simulate, train, unsupervised)
from .help import HelpFormatter, Parser
from .option_modes import given_options
from .threads import add_threads_option, use_threads

MODULES = (score, train, methods, fit, export, exports, evaluate, choose, lm, data, align, encode,
           simulate, compare, unsupervised, joint_align, demo, plot)
EXIT_INPUT, EXIT_DIVERGED, EXIT_INTERRUPTED, EXIT_TERMINATED = 2, 3, 130, 143
EXIT_SYSTEM = 4  # the machine refused a write: disk full, quota, read-only
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool whose reader left
SYSTEM_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG}


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that temporary files are removed on the way
    out (as for Ctrl-C)."""


class _Signals:
    """While a verb runs: SIGTERM raises ``Terminated``; SIGINT raises KeyboardInterrupt and is
    remembered, because Lightning turns it into ``sys.exit(1)``."""

    def __init__(self) -> None:
        self.interrupted = False
        self._old: dict = {}

    def __enter__(self) -> "_Signals":
        if threading.current_thread() is threading.main_thread():
            self._old = {signal.SIGTERM: signal.signal(signal.SIGTERM, self._term),
                         signal.SIGINT: signal.signal(signal.SIGINT, self._int)}
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._old.items():
            signal.signal(signum, handler)

    def _term(self, signum, frame) -> None:
        raise Terminated()

    def _int(self, signum, frame) -> None:
        self.interrupted = True
        raise KeyboardInterrupt()


def _verb_in(argv: list[str]) -> str | None:
    """The first word of ``argv`` that is neither an option nor the value of the one top-level
    option that takes one (``--threads N``): the verb, if any."""
    words = iter(argv)
    for a in words:
        if a == "--threads":
            next(words, None)
        elif not a.startswith("-"):
            return a
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only its verb gets its full options (``None``: every verb)."""
    p = Parser(prog="crossalign", formatter_class=HelpFormatter,
               description="Train, export and use cross-lingual remappings of multilingual "
               "encoders for reference-free MT evaluation (XMoverScore).",
               epilog="Start with: crossalign score --help, crossalign train --help, "
               "crossalign methods")
    p.add_argument("--version", action="version", version=f"crossalign {__version__}",
                   help="print the package version and exit")
    add_threads_option(p, argparse.SUPPRESS)
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=Parser)
    wanted = None if argv is None else _verb_in(argv) or ""
    for module in MODULES:
        if wanted is None or wanted in module.VERBS:
            module.register(sub)
        else:
            for verb, help_ in module.VERBS.items():
                sub.add_parser(verb, help=help_, add_help=False)
    for verb_parser in sub.choices.values():
        if verb_parser.add_help:  # a built verb: every one takes --threads and -q
            add_threads_option(verb_parser, argparse.SUPPRESS)
            for each in (verb_parser, *_tasks(verb_parser)):
                if "--quiet" not in each._option_string_actions:
                    each.add_argument("-q", "--quiet", action="store_true",
                                      help="no notes, warnings or progress bars")
    return p


def _chain(parser: argparse.ArgumentParser, args: argparse.Namespace
           ) -> list[argparse.ArgumentParser]:
    """The parsers that read this command line: the top one, the verb's, the task's."""
    chain = [parser]
    for name in (getattr(args, "verb", None), getattr(args, "task", None)):
        subs = [a for a in chain[-1]._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or name not in subs[0].choices:
            break
        chain.append(subs[0].choices[name])
    return chain


def _tasks(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of a verb's tasks (``evaluate wmt17``, ``data bible``)."""
    return [p for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for p in action.choices.values()]


@contextlib.contextmanager
def _quiet(on: bool):
    """``-q``: progress bars (tqdm's, Lightning's) off and warnings silenced while the verb
    runs; both restored after it."""
    if not on:
        yield
        return
    import warnings

    from tqdm import std

    shown = std.tqdm.__init__

    def hidden(self, *args, **kwargs):  # every bar (Lightning's too) made disabled
        kwargs["disable"] = True
        shown(self, *args, **kwargs)

    std.tqdm.__init__ = hidden
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        std.tqdm.__init__ = shown


def main(argv: list[str] | None = None) -> int:
    """Run one verb; exit 0, 2 on bad input, 3 when training diverged, 130 on Ctrl-C — each
    failure as one line on stderr."""
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("WANDB_MODE", "offline")  # a wandb logger in a recipe stays local
    parser = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    args.command_line = ["crossalign", *argv]  # what a card or a record says made it
    args.given = given_options(_chain(parser, args), argv)  # what the user asked for, by name
    if extra and not getattr(args, "takes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    signals = _Signals()
    try:
        use_threads(getattr(args, "threads", None))
        with signals, _quiet(getattr(args, "quiet", False)), _one_line_warnings():
            args.func(args, *([extra] if getattr(args, "takes_extra", False) else []))
            sys.stdout.flush()  # a full disk under stdout fails here, not at exit
        if not getattr(args, "quiet", False):  # after the work: an error stays one line
            for note in getattr(args, "old_names", None) or []:
                print(f"crossalign: note: {note}", file=sys.stderr)
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
    except BrokenPipeError:  # the reader stopped (| head): end quietly, as a shell tool does
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        if _first_process():
            print("crossalign: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        if _first_process():
            print("crossalign: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except RecursionError:  # a file nested past what a parser takes, wherever it was read
        print("crossalign: error: an input file is nested too deeply to be read",
              file=sys.stderr)
        return EXIT_INPUT
    except Exception as err:
        if _system_failure(err):
            _silence_stdout()
            print(f"crossalign: error: {_system_failure(err)}", file=sys.stderr)
            return EXIT_SYSTEM
        if type(err).__name__ != "MisconfigurationException":
            raise
        # Lightning's verdict on a trainer setting (devices, accelerator, strategy, epochs)
        print(f"crossalign: error: {str(err).strip().splitlines()[0]}", file=sys.stderr)
        return EXIT_INPUT
    except SystemExit as err:
        # Lightning ends a fit stopped by SIGTERM with a SystemExit of code None (success) and
        # one stopped by Ctrl-C with sys.exit(1): neither is a finished run
        if type(err).__name__ == "SIGTERMException":
            print("crossalign: terminated", file=sys.stderr)
            return EXIT_TERMINATED
        if signals.interrupted:
            print("crossalign: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        raise
    return 0


def _first_process() -> bool:
    """Whether this is the process that speaks for a run (rank 0, or the only one): the
    processes a multi-process run started end silently beside it."""
    return os.environ.get("LOCAL_RANK", "0") in ("", "0") and \
        os.environ.get("NODE_RANK", "0") in ("", "0")


@contextlib.contextmanager
def _one_line_warnings():
    """While a verb runs, every warning crossalign itself emits is one ``crossalign: warning:``
    line (no source path, no line of code, a bounded excerpt); other packages' warnings are
    silenced (``PYTHONWARNINGS`` set: Python's own display, for debugging)."""
    import warnings

    if os.environ.get("PYTHONWARNINGS"):
        yield
        return
    import alignment
    import train

    roots = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (alignment, train))

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if not os.path.abspath(str(filename)).startswith(roots):
            return
        text = " ".join(str(message).split())
        if len(text) > 300:
            text = text[:299] + "…"
        print(f"crossalign: warning: {text}", file=sys.stderr)

    shown = warnings.showwarning
    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def _system_failure(err: BaseException) -> str | None:
    """One line for a write the machine refused (disk full, quota, read-only file system),
    wherever it was raised — an OSError, or a library's error that wraps one."""
    if isinstance(err, OSError) and err.errno in SYSTEM_ERRNOS:
        where = f" writing {err.filename}" if err.filename else (
            " writing the output" if err.errno == errno.ENOSPC else "")
        return f"{os.strerror(err.errno)}{where}; free space or choose another place"
    text = str(err)
    if type(err).__name__ == "SafetensorError" and ("code: 28" in text or "No space" in text):
        return f"{os.strerror(errno.ENOSPC)} writing a weights file; free space or choose another place"
    cause = err.__cause__ or err.__context__
    return _system_failure(cause) if cause is not None and cause is not err else None


def _silence_stdout() -> None:
    """Point standard output at /dev/null so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
