"""Every table and ``metrics.json`` the package writes: printed, and written beside each other
(atomically), so no verb prints a table it does not also keep."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any

from alignment.atomic import MANIFEST, write_text

from train.runs.run_folder import MARKER as RUN_MARKER


@dataclass(frozen=True)
class Column:
    """A table column: the metric's key, its header and how a value prints (``scale`` ×
    value with ``digits`` decimals; shares print as percentages by default)."""

    key: str
    header: str
    scale: float = 100.0
    digits: int = 1

    def cell(self, value: Any, width: int) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "–".rjust(width)
        return f"{self.scale * value:.{self.digits}f}".rjust(width)


def as_column(column: Column | tuple[str, str]) -> Column:
    return column if isinstance(column, Column) else Column(*column)


def format_table(rows: list[tuple[str, dict[str, float]]],
                 columns: list[Column | tuple[str, str]]) -> str:
    """Rows of (name, metrics) under columns (``Column``, or (key, header) for a percentage);
    missing values print as '–'."""
    cols = [as_column(c) for c in columns]
    name_w = max([len("method")] + [len(r[0]) for r in rows])
    widths = [max(len(c.header), 7) for c in cols]
    head = "method".ljust(name_w) + "  " + "  ".join(c.header.rjust(w) for c, w in zip(cols, widths))
    lines = [head, "-" * len(head)]
    for name, metrics in rows:
        cells = [c.cell(metrics.get(c.key), w) for c, w in zip(cols, widths)]
        lines.append(name.ljust(name_w) + "  " + "  ".join(cells))
    return "\n".join(lines)


def verdict(lo: float, hi: float) -> str:
    """What an interval of a difference says: better or worse where it excludes 0."""
    return "better" if lo > 0 else "worse" if hi < 0 else "no difference"


def format_difference(d: float, lo: float, hi: float) -> str:
    """A difference of shares in points with its interval and verdict."""
    return f"{100 * d:+6.1f}  [{100 * lo:+6.1f}, {100 * hi:+6.1f}]  {verdict(lo, hi)}"


def format_against(base: str, differences: dict[str, tuple[float, float, float]], resamples: int,
                   direction: str = "es→en", items: str = "test verses") -> str:
    """Every row's retrieval P@1 minus the baseline's, with paired-bootstrap intervals: the
    block each comparison table ends with."""
    width = max(len(n) for n in differences)
    lines = [f"{direction} P@1 against {base} (points; paired bootstrap 95% CI over the {items}, "
             f"{resamples} resamples):"]
    lines += [f"  {name:<{width}} {format_difference(*d)}" for name, d in differences.items()]
    return "\n".join(lines) + "\n"


def write_metrics(path: str | Path, metrics: dict[str, float]) -> Path:
    """``metrics.json``: flat keys, numbers only, sorted; written atomically."""
    flat = {k: float(v) for k, v in metrics.items()}
    write_text(path, json.dumps(flat, indent=2, sort_keys=True))
    return Path(path)


REPORT_MARKER = ".crossalign-report"  # beside the table.txt/metrics.json a report wrote
REPORT_FILES = ("table.txt", "metrics.json", "config.json")
NOT_A_REPORT_FOLDER = (RUN_MARKER, "run.json", "remap.json", MANIFEST)


def check_report_dir(out_dir: str | Path | None) -> None:
    """Refuse an ``--out`` that cannot become a folder, or whose table/metrics files are not a
    report's (a run's or an export's own, or the user's), before the work that fills it."""
    import os

    from alignment.errors import InputError

    if out_dir is None:
        return
    out = Path(out_dir).resolve()
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise InputError(f"{out_dir} cannot be a folder: {existing} is a file", parameter="out")
    names = set(os.listdir(out)) if out.is_dir() else set()
    if names & set(NOT_A_REPORT_FOLDER):
        raise InputError(f"{out_dir} is a run or export folder: its metrics.json is its own; "
                         "write the report elsewhere", parameter="out")
    clash = sorted(names & set(REPORT_FILES))
    if clash and REPORT_MARKER not in names:
        raise InputError(f"{out_dir} holds {', '.join(clash)} that no crossalign report wrote; "
                         "crossalign never overwrites them: choose another folder",
                         parameter="out")


def report(text: str, metrics: dict[str, float], out_dir: str | Path | None,
           config: Any = None, fmt: str = "text", about: dict | None = None) -> None:
    """Print ``text`` (``fmt="json"``: one JSON object instead, ``about`` — the task, its
    signatures — and ``metrics``); with ``out_dir``, also write ``table.txt``,
    ``metrics.json`` and (given) the ``config.json`` that produced them."""
    if fmt == "json":
        print(json.dumps({**(about or {}), "metrics": metrics}, indent=2), flush=True)
    else:
        print(text, flush=True)
    if out_dir is None:
        return
    out = Path(out_dir)
    write_text(out / REPORT_MARKER, "written by crossalign's report: table.txt, metrics.json, "
               "config.json here may be replaced by the next report\n")
    write_text(out / "table.txt", text.strip("\n") + "\n")
    write_metrics(out / "metrics.json", metrics)
    if config is not None:
        data = asdict(config) if is_dataclass(config) else config
        write_text(out / "config.json", json.dumps(data, indent=2))
