"""Every table and ``metrics.json`` the package writes: printed, and written beside each other
(atomically), so no verb prints a table it does not also keep."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from alignment.atomic import write_text


def format_table(rows: list[tuple[str, dict[str, float]]], columns: list[tuple[str, str]],
                 percent: bool = True) -> str:
    """Rows of (name, metrics) under (key, header) columns; missing values print as '–'."""
    name_w = max([len("method")] + [len(r[0]) for r in rows])
    widths = [max(len(h), 7) for _, h in columns]
    head = "method".ljust(name_w) + "  " + "  ".join(h.rjust(w) for (_, h), w in zip(columns, widths))
    lines = [head, "-" * len(head)]
    for name, metrics in rows:
        cells = []
        for (key, _), w in zip(columns, widths):
            v = metrics.get(key)
            cells.append("–".rjust(w) if v is None or (isinstance(v, float) and math.isnan(v))
                         else f"{100 * v if percent else v:.1f}".rjust(w))
        lines.append(name.ljust(name_w) + "  " + "  ".join(cells))
    return "\n".join(lines)


def write_metrics(path: str | Path, metrics: dict[str, float]) -> Path:
    """``metrics.json``: flat keys, numbers only, sorted; written atomically."""
    flat = {k: float(v) for k, v in metrics.items()}
    write_text(path, json.dumps(flat, indent=2, sort_keys=True))
    return Path(path)


def check_report_dir(out_dir: str | Path | None) -> None:
    """Refuse an ``--out`` that cannot become a folder, before the work that fills it."""
    from alignment.errors import InputError

    if out_dir is None:
        return
    out = Path(out_dir).resolve()
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise InputError(f"{out_dir} cannot be a folder: {existing} is a file", parameter="out")


def report(text: str, metrics: dict[str, float], out_dir: str | Path | None,
           config: Any = None) -> None:
    """Print ``text``; with ``out_dir``, also write ``table.txt``, ``metrics.json`` and (given)
    the ``config.json`` that produced them."""
    print(text, flush=True)
    if out_dir is None:
        return
    out = Path(out_dir)
    write_text(out / "table.txt", text.strip("\n") + "\n")
    write_metrics(out / "metrics.json", metrics)
    if config is not None:
        data = asdict(config) if is_dataclass(config) else config
        write_text(out / "config.json", json.dumps(data, indent=2))
