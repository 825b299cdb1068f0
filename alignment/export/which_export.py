"""Which export for my pair, how good, measured how: one page made from the exports' own
headlines (each ``scoring.json``'s ``measured``), as COMET's model list is made from its
models — so a number on it is the number the export carries. ``crossalign exports --format
markdown`` prints it; ``docs/which_export.md`` is that page for the shipped exports."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .card import Headline, fmt_r, read_headline

DIRECTIONS = (("into English", lambda s, t: t == "en" and s != "en"),
              ("from English", lambda s, t: s == "en" and t != "en"),
              ("neither side English", lambda s, t: "en" not in (s, t)))


@dataclass(frozen=True)
class Measured:
    """An export and the headline its configuration keeps (None: not measured)."""

    name: str
    pair: str
    mapping: str
    headline: Headline | None

    @property
    def direction(self) -> str:
        src, tgt = self.pair.split("-")
        return next(label for label, test in DIRECTIONS if test(src, tgt))


def measured_exports(entries) -> list[Measured]:
    """The ``crossalign exports`` entries with their headlines."""
    return [Measured(e.name, e.pair, e.mapping, read_headline(Path(e.folder))) for e in entries]


def benchmark_means(exports: list[Measured]) -> dict[tuple[str, str], tuple[float, int]]:
    """The mean headline Pearson of each (direction, benchmark split) and how many pairs: the
    averages the README quotes (WMT17 test into English, MLQE-PE test into English…)."""
    groups: dict[tuple[str, str], list[float]] = {}
    for e in exports:
        if e.headline is not None:
            groups.setdefault((e.direction, e.headline.on), []).append(e.headline.pearson)
    return {k: (sum(v) / len(v), len(v)) for k, v in groups.items()}


def which_export_page(exports: list[Measured], command: str) -> str:
    """The page: one table a direction (pair, export, agreement with its interval, on what,
    the setting measured), each benchmark's mean, and the exports no judgments measured."""
    lines = ["# Which export for my pair", "",
             f"Made by `{command}` from each export's `scoring.json` (a test keeps this page "
             "equal to it). Score a pair with its export by name: `crossalign score --encoder "
             "NAME --src SRC --hyp MT`. The agreement is the Pearson correlation of the "
             "export's own setting with people's scores on the benchmark split named, with its "
             "95% bootstrap interval; `crossalign export --measure NAME --from CLONE` measures "
             "it again, and the export's card (`crossalign exports` names its folder) sets it "
             "beside the unmapped encoder in the same setting.", ""]
    means = benchmark_means(exports)
    for label, _ in DIRECTIONS:
        rows = [e for e in exports if e.direction == label and e.headline is not None]
        if not rows:
            continue
        lines += [f"## {label[0].upper()}{label[1:]}", "",
                  "| pair | export | map | agreement [95% CI] | on | the setting measured |",
                  "|---|---|---|---|---|---|"]
        for e in sorted(rows, key=lambda e: (e.headline.on, e.pair)):
            h = e.headline
            lines.append(f"| {e.pair} | `{e.name}` | {e.mapping} | {fmt_r(h.pearson)} "
                         f"[{fmt_r(h.lo)}, {fmt_r(h.hi)}] | {h.on} | {h.row} |")
        lines += [""] + [f"Mean over the {n} pairs of {on}: **{fmt_r(mean)}**."
                         for (d, on), (mean, n) in sorted(means.items()) if d == label] + [""]
    unmeasured = [e for e in exports if e.headline is None]
    if unmeasured:
        lines += ["## Not measured against people", "",
                  *[f"- `{e.name}` ({e.pair}, {e.mapping}): no human judgments measured it; "
                    "its card says what it was fitted on." for e in unmeasured], ""]
    return "\n".join(lines)
