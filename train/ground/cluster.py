"""What a multi-process run needs to know before Lightning loads: whether other machines can
join (a cluster environment), how long a process waits for its peers, and a watchdog that ends
the run on SIGTERM or SIGINT even while it waits inside gloo."""
from __future__ import annotations

from alignment.errors import InputError


PEER_TIMEOUT_ENV = "CROSSALIGN_PEER_TIMEOUT"
PEER_TIMEOUT_S = 600  # how long a process waits for its peers: to start, or to end their shards
GRACE_S = 3.0  # after SIGTERM/SIGINT, how long the main thread has to end on its own
# the environments in which other nodes can join a run (Lightning's cluster environments)
CLUSTER_VARIABLES = (("SLURM_NTASKS",), ("TORCHELASTIC_RUN_ID",), ("LSB_JOBID",),
                     ("OMPI_COMM_WORLD_SIZE",), ("PMI_SIZE",), ("MASTER_ADDR", "NODE_RANK"))


def in_cluster() -> bool:
    """Whether this process runs where several machines can join one run: under SLURM,
    torchrun, LSF or MPI, or with ``MASTER_ADDR`` and ``NODE_RANK`` set by hand."""
    import os

    return any(all(os.environ.get(v) for v in group) for group in CLUSTER_VARIABLES)


def peer_timeout() -> int:
    """Seconds a process waits for its peers (``CROSSALIGN_PEER_TIMEOUT``, default 600)."""
    import os

    raw = os.environ.get(PEER_TIMEOUT_ENV, "").strip()
    if not raw:
        return PEER_TIMEOUT_S
    if not raw.isdigit() or int(raw) < 1:
        raise InputError(f"{PEER_TIMEOUT_ENV} must be a whole number of seconds >= 1, got "
                         f"{raw[:40]!r}", parameter=PEER_TIMEOUT_ENV)
    return int(raw)


class Watchdog:
    """While a multi-process run is in flight: a SIGTERM or SIGINT that the main thread cannot
    act on (it waits inside gloo for a peer, where Python's handlers do not run) still ends the
    process within ``GRACE_S`` seconds — the child processes told to end, one line said, exit
    143 or 130. The signal reaches a thread through ``signal.set_wakeup_fd``."""

    def __init__(self, children=lambda: []) -> None:
        self.children = children  # callable: the Popen objects of the processes this one started
        self._fds: tuple[int, int] | None = None
        self._old_fd = -1
        self._done = None

    def __enter__(self) -> "Watchdog":
        import os
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return self
        read, write = os.pipe()
        os.set_blocking(write, False)
        self._fds, self._done = (read, write), threading.Event()
        self._old_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="crossalign-watchdog", daemon=True).start()
        return self

    def __exit__(self, kind, value, tb) -> None:
        import os
        import signal

        if self._fds is None:
            return
        if kind is not None:  # the run failed or was stopped here: its children end with it
            self._end_children()
        self._done.set()
        signal.set_wakeup_fd(self._old_fd)
        os.write(self._fds[1], b"\0")  # wake the thread so it ends
        self._fds = None

    def _end_children(self) -> None:
        import signal

        for proc in list(self.children() or []):
            try:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            except (OSError, ValueError, AttributeError):
                pass

    def _watch(self) -> None:
        import os
        import signal
        import sys

        read = self._fds[0]
        while True:
            try:
                got = os.read(read, 1)
            except OSError:
                return
            if self._done.is_set() or not got:
                return
            signum = got[0]
            if signum not in (signal.SIGTERM, signal.SIGINT):
                continue
            if self._done.wait(GRACE_S):  # the main thread ended the run itself
                return
            self._end_children()
            print("crossalign: terminated" if signum == signal.SIGTERM
                  else "crossalign: interrupted", file=sys.stderr, flush=True)
            os._exit(143 if signum == signal.SIGTERM else 130)
