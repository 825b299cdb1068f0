"""What the benchmarks share: the project root, the pairs a benchmark has (``Benchmark.pairs``),
the judged segments of a split, a result written as JSON beside its table, and a stage run
only when its result is not there yet."""
from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pairs(benchmark: str, into_english: bool | None = None) -> list[str]:
    """The pairs of a registered benchmark (``into_english``: only those into English, or
    only those out of it)."""
    from alignment.judgments import get_benchmark

    found = list(get_benchmark(benchmark).pairs)
    if into_english is None:
        return found
    return [p for p in found if p.endswith("-en") == into_english]


def judged(benchmark: str, data: Path, split: str, which: list[str] | None = None):
    """The judged segments of ``split`` in ``data/BENCHMARK`` (``crossalign data``)."""
    from alignment.judgments import get_benchmark

    return get_benchmark(benchmark).load(Path(data) / benchmark, split, which)


def write_result(out: str | Path, result: dict, markdown: str | None = None) -> None:
    """``OUT.json`` (and ``OUT.md``), their folder made."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{out}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False),
                                   encoding="utf-8")
    if markdown is not None:
        Path(f"{out}.md").write_text(markdown.rstrip("\n") + "\n", encoding="utf-8")


def run_once(cmd: list[str], folder: Path) -> float:
    """Run ``cmd`` unless ``folder`` already holds its result; its wall-clock seconds."""
    stamp = folder.parent / f"{folder.name}.wall.json"  # beside the run: never inside it
    if stamp.is_file():
        return json.loads(stamp.read_text())["seconds"]
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    seconds = time.perf_counter() - start
    stamp.write_text(json.dumps({"seconds": seconds, "command": cmd}))  # written last: done
    return seconds
