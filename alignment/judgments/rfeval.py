"""Any judgments file: a TSV with lp, src, mt, score (ref, system optional), the layout
``crossalign evaluate rfeval --data FILE`` has always read."""
from __future__ import annotations

from pathlib import Path

from alignment.errors import InputError

from .benchmark import Benchmark, register_benchmark
from .segments import JudgedSegments, read_judgments


def load(data: Path, split: str = "test", pairs: list[str] | None = None) -> JudgedSegments:
    if Path(data).is_dir():
        raise InputError("rfeval reads one judgments TSV, not a folder", parameter="data")
    segments = read_judgments(data)
    if not pairs:
        return segments
    missing = sorted(set(pairs) - set(segments.lp))
    if missing:
        raise InputError(f"has no segments of pair(s) {missing} (it has {segments.pairs})",
                         path=data)
    return segments.subset([i for i, lp in enumerate(segments.lp) if lp in pairs])


BENCHMARK = register_benchmark(Benchmark(
    "rfeval", "a judgments TSV of your own (lp, src, mt, score; ref and system optional)", load))
