"""Where a score's time goes: the seconds of each stage of scoring (the token pass, the
transport, the sentence vectors, each term — an LM's layers apart from its output layer), laid
down as the work happens and printed by ``score --timings``."""
from __future__ import annotations

import time


class Laps:
    """Seconds by stage into ``into``: each ``lap(stage)`` adds the time since the last lap."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into, self.clock = into, time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.into[stage] = self.into.get(stage, 0.0) + now - self.clock
        self.clock = now


def timings_table(seconds: dict[str, float], segments: int, wall: float) -> str:
    """One line a stage, largest first: seconds, ms a segment and share of ``wall`` (the
    whole command), and what no stage accounts for (start-up, loading, reading, Python)."""
    rows = sorted(seconds.items(), key=lambda kv: -kv[1])
    rows.append(("(not in a stage: start-up, loading, reading)", max(wall - sum(seconds.values()), 0.0)))
    width = max(len(k) for k, _ in rows)
    lines = [f"{'stage':<{width}}  {'s':>8}  {'ms/seg':>8}  {'share':>6}"]
    for name, value in rows:
        lines.append(f"{name:<{width}}  {value:8.2f}  {1e3 * value / max(segments, 1):8.1f}  "
                     f"{100 * value / max(wall, 1e-9):5.1f}%")
    return "\n".join(lines + [f"{'whole command':<{width}}  {wall:8.2f}  "
                              f"{1e3 * wall / max(segments, 1):8.1f}  100.0%"])


def process_seconds() -> float:
    """Seconds since this process started (Linux: from ``/proc``; elsewhere since this module
    was imported)."""
    import os

    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            started = int(fh.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime", encoding="ascii") as fh:
            return float(fh.read().split()[0]) - started
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED


_IMPORTED = time.perf_counter()
