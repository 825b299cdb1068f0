"""Plain-text result tables, printed and written beside metrics.json."""
from __future__ import annotations

import math


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
