"""``--threads``: how many CPU threads torch uses, for every verb and the Lightning runs it
starts. On a shared machine torch's default (one thread per core) oversubscribes the cores that
other jobs hold, and its threads then mostly wait for each other."""
from __future__ import annotations

import argparse
import os

ENV = "CROSSALIGN_THREADS"
HELP = ("CPU threads for torch: a number, or 'auto' (the default: the cores that other work "
        "leaves idle when the command starts, at least 1; all cores on an idle machine). Also "
        f"${ENV}. Scores do not depend on it; a trained map's last digits do, so give a number "
        "to reproduce a training run exactly (run.json records the count used)")


def thread_count(text: str) -> int | str:
    """``--threads``' value: a whole number >= 1, or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number or 'auto'") from None
    cores = os.cpu_count() or 1
    if not 1 <= value <= 4 * cores:
        raise argparse.ArgumentTypeError(f"{value} is not in [1, {4 * cores}] (4 × this "
                                         f"machine's {cores} cores)")
    return value


def add_threads_option(parser: argparse.ArgumentParser, default=None) -> None:
    parser.add_argument("--threads", type=thread_count, default=default, metavar="N|auto",
                        help=HELP)


def idle_cores(cores: int | None = None, sample_seconds: float = 0.25) -> int:
    """The cores that other work leaves free (``auto``): when the load average says the machine
    may be busy, the busy share of every CPU measured over ``sample_seconds`` (a load average
    still counts work that just ended); at least 1."""
    cores = cores or os.cpu_count() or 1
    try:
        if os.getloadavg()[0] < 0.5:
            return cores
        busy = busy_cores(sample_seconds)
    except (AttributeError, OSError, ValueError):  # no load figures on this system
        return cores
    return max(1, min(cores, cores - int(round(busy))))


def busy_cores(seconds: float) -> float:
    """How many cores' worth of CPU time other processes used over ``seconds`` (Linux
    /proc/stat; this process sleeps meanwhile)."""
    import time

    def times() -> tuple[int, int]:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:9]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, all

    idle0, total0 = times()
    time.sleep(seconds)
    idle1, total1 = times()
    if total1 <= total0:
        return 0.0
    cores = os.cpu_count() or 1
    return cores * (1 - (idle1 - idle0) / (total1 - total0))


def resolve_threads(given: int | str | None) -> int:
    """The thread count from the option, else ``$CROSSALIGN_THREADS``, else ``auto``; a bad
    environment value is an error naming the variable."""
    from alignment.errors import InputError

    if given is None:
        text = os.environ.get(ENV, "auto")
        try:
            given = thread_count(text)
        except argparse.ArgumentTypeError as err:
            raise InputError(str(err), parameter=ENV) from None
    return idle_cores() if given == "auto" else int(given)


def use_threads(given: int | str | None) -> int:
    """Set torch's intra-op threads (and the variable that child processes read) to the
    resolved count; returns it."""
    import sys

    n = resolve_threads(given)
    os.environ[ENV] = str(n)  # subprocesses inherit the choice
    os.environ["OMP_NUM_THREADS"] = str(n)  # read by torch when it is first imported
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(n)
    return n
