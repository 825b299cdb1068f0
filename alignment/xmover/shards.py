"""A scoring run in shards: the pairs read from files of any size one shard at a time, each
shard's scores kept in a file of its own (written atomically, signed, tied to the shard's
bytes), a run that resumes from the shards it finished, and the merge in input order. A pair's
score does not depend on the pairs scored beside it, so shards scored by any number of
processes merge into the one-process scores."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment.atomic import write_text
from alignment.data.corpus import STDIN, decode_line
from alignment.errors import InputError
from .score_result import ScoreResult, has_text

SHARDS_FORMAT = "crossalign-shards-1"
RUN_FILE = "run.json"  # the run a shards folder belongs to: its signature, inputs and shards


@dataclass(frozen=True)
class Shard:
    """``count`` consecutive pairs from pair ``first`` (0-based) on; ``offsets``: where they
    start in each input file (bytes); ``digest``: the sha256 of their bytes in every input, so
    a kept shard of other text is never taken for this one."""

    index: int
    first: int
    count: int
    offsets: tuple[int, ...]
    digest: str

    @property
    def name(self) -> str:
        return f"shard-{self.index:06d}.json"


class PairFiles:
    """The pairs to score, from files: a source and a hypothesis file read in step (one
    sentence a line), or one file of pairs — TSV (``source<TAB>hypothesis``) or, named
    ``.jsonl``, JSON Lines (``{"src": …, "hyp": …}``). Lines are read as ``read_lines`` reads
    them; an empty hypothesis is scored, an empty source refused."""

    def __init__(self, src: str | Path | None = None, hyp: str | Path | None = None,
                 pairs: str | Path | None = None) -> None:
        if (pairs is None) == (src is None or hyp is None):
            raise InputError("give a source and a hypothesis file, or one file of pairs",
                             parameter="pairs-file")
        given = (pairs,) if pairs is not None else (src, hyp)
        for name in given:
            if str(name) == STDIN:
                raise InputError("a run in shards reads files (each shard is read when it is "
                                 "scored): give a file, not -", parameter="pairs-file" if pairs else "src")
            if not Path(name).is_file():
                raise InputError("file not found" if not Path(name).exists()
                                 else "is a folder, not a text file", path=name)
        self.paths = tuple(Path(p) for p in given)
        self.kind = "lines" if pairs is None else \
            ("jsonl" if self.paths[0].suffix.lower() == ".jsonl" else "tsv")

    def _pair(self, raws: list[bytes], number: int) -> tuple[str, str]:
        """Line ``number`` as (source, hypothesis), or a refusal naming the file and line."""
        if self.kind == "lines":
            src = decode_line(raws[0], self.paths[0], number)
            hyp = decode_line(raws[1], self.paths[1], number, allow_empty=True)
        elif self.kind == "tsv":
            fields = decode_line(raws[0], self.paths[0], number).split("\t")
            if len(fields) != 2:
                raise InputError(f"a line holds the source, a TAB and the hypothesis; this one "
                                 f"has {len(fields)} field{'s' if len(fields) != 1 else ''}",
                                 path=self.paths[0], line=number)
            src, hyp = fields
        else:
            try:
                row = json.loads(decode_line(raws[0], self.paths[0], number))
            except ValueError as err:
                raise InputError(f"not JSON ({err})", path=self.paths[0], line=number) from None
            if not isinstance(row, dict) or not all(isinstance(row.get(k), str)
                                                    for k in ("src", "hyp")):
                raise InputError('a line must be an object with "src" and "hyp" strings',
                                 path=self.paths[0], line=number)
            src, hyp = row["src"], row["hyp"]
        if not has_text(src):
            raise InputError("empty source (nothing to translate)", path=self.paths[0],
                             line=number)
        return src, hyp

    def shards(self, size: int) -> list[Shard]:
        """One pass over the files: every line checked (file:line) before anything loads, and
        each shard's start and digest; only the shards are kept, never the text."""
        if size < 1:
            raise InputError(f"must be >= 1, got {size}", parameter="shard-size")
        handles = [p.open("rb") for p in self.paths]
        out: list[Shard] = []
        try:
            positions, number, start, digest = [0] * len(handles), 0, None, None
            while True:
                raws = [h.readline() for h in handles]
                if all(r == b"" for r in raws):
                    break
                number += 1
                if any(r == b"" for r in raws):
                    short = next(k for k, r in enumerate(raws) if r == b"")
                    raise InputError(f"has {number - 1} lines, {self.paths[1 - short].name} more",
                                     path=self.paths[short], line=number)
                self._pair(raws, number)
                if (number - 1) % size == 0:
                    if start is not None:
                        out.append(Shard(len(out), *start, digest.hexdigest()))
                    start, digest = [number - 1, 0, tuple(positions)], hashlib.sha256()
                start[1] += 1
                for k, raw in enumerate(raws):
                    digest.update(len(raw).to_bytes(8, "little") + raw)
                    positions[k] += len(raw)
            if start is None:
                raise InputError("file is empty", path=self.paths[0])
            out.append(Shard(len(out), *start, digest.hexdigest()))
        finally:
            for h in handles:
                h.close()
        return out

    def read(self, shard: Shard) -> tuple[list[str], list[str]]:
        """The shard's sources and hypotheses."""
        handles = [p.open("rb") for p in self.paths]
        try:
            for h, offset in zip(handles, shard.offsets):
                h.seek(offset)
            pairs = [self._pair([h.readline() for h in handles], shard.first + k + 1)
                     for k in range(shard.count)]
        finally:
            for h in handles:
                h.close()
        return [s for s, _ in pairs], [h for _, h in pairs]


def _read_json(path: Path) -> object:
    """A kept JSON file's content, or None where it is missing, unreadable, not JSON or nested
    beyond what the parser takes."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def scores_digest(data: dict) -> str:
    """The sha256 of what a shard file says was scored: its scores, every term's values, the
    empty and cut lines (canonical JSON), so that an edit of any of them is seen."""
    kept = {k: data.get(k) for k in ("final", "values", "empty", "truncated")}
    try:
        text = json.dumps(kept, sort_keys=True, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError):
        return ""
    return hashlib.sha256(text.encode()).hexdigest()


def run_digest(shards: list[Shard]) -> str:
    """One fingerprint of every shard's bytes and bounds: the whole input as sharded."""
    h = hashlib.sha256()
    for s in shards:
        h.update(f"{s.first}:{s.count}:{s.digest};".encode())
    return h.hexdigest()


class ShardStore:
    """A folder of one run's shard scores: ``run.json`` says which run (signature, inputs,
    shard size); a shard's file is taken as done only if it is whole and of this run and of
    this shard's bytes, else it is scored again. A folder of anything else is refused, never
    emptied."""

    def __init__(self, folder: str | Path, signature: str, files: PairFiles,
                 shards: list[Shard]) -> None:
        self.folder, self.signature, self.shards = Path(folder), signature, shards
        self.run = {"format": SHARDS_FORMAT, "signature": signature, "kind": files.kind,
                    "inputs": [p.name for p in files.paths], "shards": len(shards),
                    "shard_size": shards[0].count, "pairs": sum(s.count for s in shards),
                    "digest": run_digest(shards)}
        self.notes: list[str] = []  # what ``open`` healed in crossalign's own cache

    def open(self, own: bool = False) -> "ShardStore":
        """Check the folder is this run's (or new, or empty) and record the run in it. ``own``:
        the folder is crossalign's own cache (no ``--shards`` given), so a damaged record or a
        stray file in it is healed with a note instead of refused."""
        folder, run_file = self.folder, self.folder / RUN_FILE
        blocked = next((p for p in (folder, *folder.parents) if p.exists()), None)
        if blocked is not None and not blocked.is_dir():
            raise InputError(f"{folder} cannot be a folder: {blocked} is a file",
                             parameter="shards")
        if run_file.exists() and not run_file.is_file():
            raise InputError(f"{run_file} is a folder, not a crossalign shards record; choose "
                             "another folder", parameter="shards")
        if run_file.is_file():
            kept = _read_json(run_file)
            if not isinstance(kept, dict) or kept.get("format") != SHARDS_FORMAT:
                if not own:
                    raise InputError(f"{run_file} is not a crossalign shards record; choose "
                                     "another folder", parameter="shards")
                self.notes.append(f"the cache's record of this run ({run_file}) was damaged: "
                                  "written again, its shards checked one by one")
                kept = self.run
                write_text(run_file, json.dumps(self.run, indent=1) + "\n")
            differs = [k for k in ("signature", "digest", "shard_size") if kept.get(k) != self.run[k]]
            if differs:
                what = {"signature": "the scoring setting (signature)", "digest": "the input",
                        "shard_size": "the shard size"}
                raise InputError(f"{folder} holds the shards of another run ({', '.join(what[k] for k in differs)} "
                                 "differs); give a new --shards folder, or remove this one to "
                                 "start over", parameter="shards")
        elif folder.is_dir() and any(folder.iterdir()) and not own:
            raise InputError(f"{folder} is not empty and holds no crossalign {RUN_FILE}: "
                             "crossalign never writes into a folder of other files; choose a "
                             "new or empty one", parameter="shards")
        blocking = next((s.name for s in self.shards if (folder / s.name).is_dir()), None)
        if blocking is not None:
            raise InputError(f"{folder / blocking} is a folder where a shard's scores belong; "
                             "crossalign removes no folder it did not write: remove it or "
                             "choose another --shards folder", parameter="shards")
        if not run_file.is_file():
            write_text(run_file, json.dumps(self.run, indent=1) + "\n")
        return self

    def finished(self, shard: Shard) -> bool:
        """Whether the shard's file holds its whole, signed scores."""
        data = _read_json(self.folder / shard.name)
        if not isinstance(data, dict) or [data.get(k) for k in ("format", "signature", "index",
                                                                "digest", "count")] != \
                [SHARDS_FORMAT, self.signature, shard.index, shard.digest, shard.count]:
            return False
        if data.get("scores_sha256") != scores_digest(data):
            return False  # scores edited after they were written: never merged unseen
        arrays = [data.get("final"), *(data.get("values") or {None: None}).values()]
        return all(isinstance(a, list) and len(a) == shard.count and
                   all(isinstance(v, (int, float)) for v in a) for a in arrays) and \
            all(math.isfinite(v) for v in data["final"])

    def damaged(self, shard: Shard) -> bool:
        """A file in the shard's name that is not its finished scores (scored again)."""
        return (self.folder / shard.name).exists() and not self.finished(shard)

    def write(self, shard: Shard, result: ScoreResult) -> None:
        """The shard's scores, every term's values and its cut lines (numbered in the whole
        input), written to a temporary name and renamed."""
        data = {"format": SHARDS_FORMAT, "signature": self.signature, "index": shard.index,
                "first": shard.first, "count": shard.count, "digest": shard.digest,
                "final": [float(v) for v in result.final],
                "values": {k: [float(x) for x in v] for k, v in result.values.items()},
                "empty": result.empty_hypotheses,
                "truncated": {k: [shard.first + i for i in v] for k, v in result.truncated.items()}}
        data["scores_sha256"] = scores_digest(data)
        write_text(self.folder / shard.name, json.dumps(data) + "\n")

    def merged(self) -> ScoreResult:
        """Every shard's scores in input order, as one result (each shard must be finished)."""
        final, values, empty, cut = [], {}, 0, {}
        for shard in self.shards:
            if not self.finished(shard):
                raise InputError(f"{self.folder / shard.name} is missing or damaged: the run did "
                                 "not finish; run the same command again to score what is left",
                                 parameter="shards")
            data = _read_json(self.folder / shard.name)
            final.extend(data["final"])
            for k, v in data["values"].items():
                values.setdefault(k, []).extend(v)
            empty += data["empty"]
            for k, v in data["truncated"].items():
                cut.setdefault(k, []).extend(v)
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in values.items()}
        return ScoreResult(np.asarray(final), self.signature, arrays, {}, empty, cut)
