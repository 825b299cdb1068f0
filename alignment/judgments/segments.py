"""Judged segments: the rows every human-judgment benchmark reads (language pair, source, MT
output, optional reference, human score, optional system, and score columns the data carries
as baselines), and the one TSV layout they are stored in."""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alignment.errors import InputError

REQUIRED = ("lp", "src", "mt", "score")
OPTIONAL = ("ref", "system")


@dataclass
class JudgedSegments:
    """Segments judged by people; ``baselines`` holds score columns shipped with the data
    (SentBLEU, the MT model's log-probability), one value a segment."""

    lp: list[str]
    src: list[str]
    mt: list[str]
    human: np.ndarray
    ref: list[str] | None = None
    system: list[str] | None = None
    baselines: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.src)

    @property
    def pairs(self) -> list[str]:
        """The language pairs, in order of first appearance."""
        return list(dict.fromkeys(self.lp))

    def subset(self, index: np.ndarray | list[int]) -> "JudgedSegments":
        """The segments at ``index``, in that order."""
        idx = [int(i) for i in index]
        pick = (lambda xs: None if xs is None else [xs[i] for i in idx])
        return JudgedSegments(pick(self.lp), pick(self.src), pick(self.mt), self.human[idx],
                              pick(self.ref), pick(self.system),
                              {k: v[idx] for k, v in self.baselines.items()})

    def of_pair(self, pair: str) -> "JudgedSegments":
        """The segments of one language pair."""
        return self.subset([i for i, lp in enumerate(self.lp) if lp == pair])


def concat(parts: list[JudgedSegments]) -> JudgedSegments:
    """Several sets of judged segments as one (optional columns kept where every part has them)."""
    if not parts:
        raise ValueError("nothing to concatenate")
    every = (lambda name: all(getattr(p, name) is not None for p in parts))
    join = (lambda name: [x for p in parts for x in getattr(p, name)] if every(name) else None)
    keys = set.intersection(*(set(p.baselines) for p in parts))
    return JudgedSegments(join("lp"), join("src"), join("mt"),
                          np.concatenate([p.human for p in parts]), join("ref"), join("system"),
                          {k: np.concatenate([p.baselines[k] for p in parts]) for k in sorted(keys)})


def _decoded(path: Path) -> list[str]:
    lines = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"not valid UTF-8 (byte {err.start})", path=path,
                                 line=number) from None
            lines.append(text.lstrip("\ufeff") if number == 1 else text)
    return lines


def finite_number(text: str, what: str, path: Path | str, line: int) -> float:
    """A score cell as a number; not a number, NaN or infinite is one line naming the file
    (``ARCHIVE!MEMBER`` inside a tarball) and the line, at build time."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{what} '{text}' is not a number", path=path, line=line) from None
    if not np.isfinite(value):
        raise InputError(f"{what} '{text}' is not a finite number", path=path, line=line)
    return value


def read_judgments(path: str | Path, baselines: tuple[str, ...] = ()) -> JudgedSegments:
    """A judgments TSV: a header naming at least lp, src, mt, score (ref, system optional, and
    the ``baselines`` score columns, which must then be there); one segment a line. Every
    fault is an ``InputError`` naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    reader = csv.reader(_decoded(path), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise InputError("file is empty", path=path) from None
    missing = [c for c in (*REQUIRED, *baselines) if c not in header]
    if missing:
        raise InputError(f"header lacks column(s) {missing} (need {list(REQUIRED)}"
                         f"{', ' + str(list(baselines)) if baselines else ''})", path=path, line=1)
    col = {c: header.index(c) for c in header}
    rows: dict[str, list] = {c: [] for c in (*REQUIRED, *OPTIONAL, *baselines)}
    for number, row in enumerate(reader, start=2):
        if len(row) != len(header):
            raise InputError(f"{len(row)} fields, the header has {len(header)} (a truncated or "
                             "malformed line)", path=path, line=number)
        for c in ("lp", "src", "mt"):
            if not row[col[c]].strip():
                raise InputError(f"empty '{c}' field", path=path, line=number)
            rows[c].append(row[col[c]])
        rows["score"].append(finite_number(row[col["score"]], "score", path, number))
        for c in OPTIONAL:
            if c in col:
                rows[c].append(row[col[c]])
        for c in baselines:
            rows[c].append(finite_number(row[col[c]], c, path, number))
    if not rows["lp"]:
        raise InputError("no judged segments (only a header)", path=path)
    return JudgedSegments(rows["lp"], rows["src"], rows["mt"], np.asarray(rows["score"]),
                          rows["ref"] if "ref" in col else None,
                          rows["system"] if "system" in col else None,
                          {c: np.asarray(rows[c]) for c in baselines})


def format_judgments(data: JudgedSegments) -> str:
    """``data`` as the TSV ``read_judgments`` reads (tabs and newlines inside fields become
    spaces)."""
    clean = (lambda s: " ".join(str(s).replace("\t", " ").split()))
    names = ["lp", "src", "mt"] + (["ref"] if data.ref is not None else []) + ["score"] + (
        ["system"] if data.system is not None else []) + list(data.baselines)
    lines = ["\t".join(names)]
    for i in range(len(data)):
        cells = [data.lp[i], data.src[i], data.mt[i]]
        if data.ref is not None:
            cells.append(data.ref[i])
        cells.append(repr(float(data.human[i])))
        if data.system is not None:
            cells.append(data.system[i])
        cells += [repr(float(v[i])) for v in data.baselines.values()]
        lines.append("\t".join(clean(c) for c in cells))
    return "\n".join(lines) + "\n"


def present_pairs(data: str | Path, file: str, known: tuple[str, ...]) -> list[str]:
    """The pairs of ``known`` whose ``data/PAIR/FILE`` is there."""
    return [p for p in known if (Path(data) / p / file).is_file()]


def prepared_files(data: Path, file: str, pairs: list[str] | None, known: tuple[str, ...],
                   name: str) -> dict[str, Path]:
    """``data/PAIR/FILE`` of a folder ``crossalign data NAME`` made, by pair: for ``pairs`` (each
    refused unless the benchmark knows it and the file is there) or every pair present; every
    fault says how to make what is missing."""
    data = Path(data)
    if not data.is_dir():
        raise InputError(f"folder not found (make it with: crossalign data {name} --from CLONE)",
                         parameter="data")
    present = present_pairs(data, file, known)
    for pair in pairs or []:
        if pair not in known:
            raise InputError(f"{name} has no pair '{pair}' (it has: {', '.join(known)})",
                             parameter="pairs")
        if pair not in present:
            raise InputError(f"{data / pair / file} is missing (make it with: "
                             f"crossalign data {name} --from CLONE --pairs {pair})", parameter="data")
    chosen = pairs or present
    if not chosen:
        raise InputError(f"{data} holds no {name} pair with {file} (make it with: "
                         f"crossalign data {name} --from CLONE)", parameter="data")
    return {pair: data / pair / file for pair in chosen}
