"""Agreement of metric scores with human judgments: segment- and system-level correlations with
bootstrap confidence intervals (the RFEval / WMT DA layout)."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment.errors import InputError

REQUIRED = ("lp", "src", "mt", "ref", "score")


@dataclass
class JudgedSegments:
    """Rows of a judgments TSV: language pair, source, MT output, reference, human score, system."""

    lp: list[str]
    src: list[str]
    mt: list[str]
    ref: list[str]
    human: np.ndarray
    system: list[str] | None


def read_judgments(path: str | Path) -> JudgedSegments:
    """TSV with a header naming at least lp, src, mt, ref, score (system optional)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    with path.open("rb") as fh:
        text = []
        for number, raw in enumerate(fh, start=1):
            try:
                text.append(raw.decode("utf-8").lstrip("\ufeff") if number == 1
                            else raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                raise InputError(f"not valid UTF-8 (byte {err.start})", path=path,
                                 line=number) from None
        reader = csv.reader(text, delimiter="\t", quoting=csv.QUOTE_NONE)
        try:
            header = [h.strip().lower() for h in next(reader)]
        except StopIteration:
            raise InputError("file is empty", path=path) from None
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise InputError(f"header lacks column(s) {missing} (need {list(REQUIRED)})", path=path, line=1)
        col = {c: header.index(c) for c in header}
        rows: dict[str, list] = {c: [] for c in (*REQUIRED, "system")}
        for number, row in enumerate(reader, start=2):
            if len(row) < len(header):
                raise InputError(f"{len(row)} fields, the header has {len(header)}", path=path, line=number)
            for c in ("lp", "src", "mt", "ref"):
                if not row[col[c]].strip():
                    raise InputError(f"empty '{c}' field", path=path, line=number)
                rows[c].append(row[col[c]])
            try:
                rows["score"].append(float(row[col["score"]]))
            except ValueError:
                raise InputError(f"score '{row[col['score']]}' is not a number", path=path,
                                 line=number) from None
            if "system" in col:
                rows["system"].append(row[col["system"]])
    return JudgedSegments(rows["lp"], rows["src"], rows["mt"], rows["ref"], np.asarray(rows["score"]),
                          rows["system"] if "system" in col else None)


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    denom = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / denom) if denom > 0 else float("nan")


def kendall(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(a, b).statistic)


def bootstrap_ci(metric: np.ndarray, human: np.ndarray, fn, n: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of ``fn`` over segment resamples (with replacement)."""
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(n):
        idx = rng.integers(0, len(metric), len(metric))
        stats.append(fn(metric[idx], human[idx]))
    lo, hi = np.nanpercentile(stats, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def correlations(data: JudgedSegments, metric: np.ndarray, n_boot: int = 1000,
                 seed: int = 0) -> dict[str, float]:
    """Per language pair: segment Pearson and Kendall τ with 95% bootstrap intervals, and
    system-level Pearson when systems are given; plus their averages over pairs."""
    if len(metric) != len(data.human):
        raise InputError(f"{len(metric)} metric scores for {len(data.human)} judged segments",
                         parameter="scores")
    out: dict[str, float] = {}
    lps = sorted(set(data.lp))
    lp_arr = np.asarray(data.lp)
    for lp in lps:
        m, h = metric[lp_arr == lp], data.human[lp_arr == lp]
        out[f"{lp}/pearson"] = pearson(m, h)
        out[f"{lp}/kendall"] = kendall(m, h)
        out[f"{lp}/pearson_lo"], out[f"{lp}/pearson_hi"] = bootstrap_ci(m, h, pearson, n_boot, seed)
        out[f"{lp}/kendall_lo"], out[f"{lp}/kendall_hi"] = bootstrap_ci(m, h, kendall, n_boot, seed)
        out[f"{lp}/segments"] = float(len(m))
        if data.system is not None:
            sys_arr = np.asarray(data.system)[lp_arr == lp]
            systems = sorted(set(sys_arr))
            if len(systems) >= 3:
                out[f"{lp}/system_pearson"] = pearson(
                    np.array([m[sys_arr == s].mean() for s in systems]),
                    np.array([h[sys_arr == s].mean() for s in systems]))
    for key in ("pearson", "kendall", "system_pearson"):
        vals = [out[f"{lp}/{key}"] for lp in lps if f"{lp}/{key}" in out]
        if vals:
            out[f"avg/{key}"] = float(np.mean(vals))
    return out
