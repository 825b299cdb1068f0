"""Human-judgment benchmarks, one registry (``BENCHMARKS``): each reads judged segments (and
system outputs where the data has them) for ``crossalign evaluate NAME``, and builds its data
folder from a clone of its public repository for ``crossalign data NAME``."""
from __future__ import annotations

from .benchmark import BENCHMARKS, Anchor, Benchmark, SystemOutputs, get_benchmark, register_benchmark
from .segments import JudgedSegments, read_judgments
from . import eval4nlp, mlqe, rfeval, wmt17  # noqa: F401  (registrations)

__all__ = ["BENCHMARKS", "Anchor", "Benchmark", "JudgedSegments", "SystemOutputs", "get_benchmark",
           "read_judgments", "register_benchmark"]
