"""Parallel corpora: reading the usual formats, validating them line by line, fingerprinting."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from alignment.catalogue import check_choice
from alignment.names import corpus_name_from
from alignment.errors import InputError


@dataclass(frozen=True)
class ParallelCorpus:
    """Sentence-aligned text: ``src[i]`` translates ``tgt[i]``."""

    src: list[str]
    tgt: list[str]
    name: str = "corpus"
    ids: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.src) != len(self.tgt):
            raise InputError(f"{len(self.src)} source but {len(self.tgt)} target sentences",
                             parameter="corpus")
        if self.ids and len(self.ids) != len(self.src):
            raise InputError("ids and sentences differ in length", parameter="ids")

    def __len__(self) -> int:
        return len(self.src)

    def subset(self, indices: list[int], name: str | None = None) -> "ParallelCorpus":
        """The corpus restricted to ``indices`` (in that order)."""
        return ParallelCorpus([self.src[i] for i in indices], [self.tgt[i] for i in indices],
                              name or self.name, [self.ids[i] for i in indices] if self.ids else [])

    def fingerprint(self) -> str:
        """Content hash of both sides (order-sensitive); 16 hex digits."""
        return fingerprint_lines(self.src, self.tgt)


def fingerprint_lines(*sides: list[str]) -> str:
    """SHA-256 over sentences of one or more sides, separated unambiguously; 16 hex digits."""
    h = hashlib.sha256()
    for side in sides:
        h.update(b"\x1e")
        for line in side:
            h.update(line.encode("utf-8"))
            h.update(b"\n")
    return h.hexdigest()[:16]


STDIN = "-"


def decode_line(raw: bytes, path: Path, number: int, allow_empty: bool = False) -> str:
    """Line ``number`` (1-based) of ``path`` as text: UTF-8 decoded, its line end dropped, a
    leading BOM on line 1 dropped; bad bytes or (unless ``allow_empty``) an empty line refused
    with file:line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"not valid UTF-8 (byte {err.start}: {raw[err.start:err.start + 1]!r})",
                         path=path, line=number) from None
    text = text.rstrip("\r\n")
    if number == 1:
        text = text.lstrip("\ufeff")
    if not allow_empty and not text.strip():
        raise InputError("empty line (every line must hold a sentence)", path=path, line=number)
    return text


def read_lines(path: str | Path, allow_empty: bool = False) -> list[str]:
    """Read a UTF-8 text file (``-``: standard input) into lines, failing with file:line on bad
    bytes or (unless ``allow_empty``) empty lines."""
    import contextlib
    import sys

    stdin = str(path) == STDIN
    path = Path(path)
    if not stdin and path.is_dir():
        raise InputError("is a folder, not a text file", path=path)
    if not stdin and not path.is_file():
        raise InputError("file not found", path=path)
    with (contextlib.nullcontext(sys.stdin.buffer) if stdin else path.open("rb")) as fh:
        lines = [decode_line(raw, path, number, allow_empty)
                 for number, raw in enumerate(fh, start=1)]
    if not lines and not allow_empty:
        raise InputError("file is empty", path=path)
    return lines


def read_parallel(src: str | Path, tgt: str | Path | None = None, fmt: str = "auto",
                  name: str | None = None) -> ParallelCorpus:
    """Read a parallel corpus.

    Formats: two plain-text files (``src`` and ``tgt``, one sentence a line), a TSV with the
    two sentences in its first two columns, or fast_align's ``src ||| tgt`` lines.
    """
    src = Path(src)
    if fmt == "auto":
        fmt = "text" if tgt is not None else _sniff_single_file(src)
    if fmt == "text":
        if tgt is None:
            raise InputError("two-file format needs a target file", parameter="tgt")
        s, t = read_lines(src), read_lines(tgt)
        if len(s) != len(t):
            shorter = src if len(s) < len(t) else Path(tgt)
            raise InputError(f"line counts differ: {src} has {len(s)}, {tgt} has {len(t)} lines",
                             path=shorter, line=min(len(s), len(t)) + 1)
        return ParallelCorpus(s, t, name or corpus_name_from(src.stem))
    check_choice(fmt, ("text", "tsv", "fast_align", "auto"), "format", "fmt")
    sep = "\t" if fmt == "tsv" else " ||| "
    s, t = [], []
    for number, line in enumerate(read_lines(src), start=1):
        parts = line.split(sep)
        if len(parts) < 2 or (fmt == "fast_align" and len(parts) != 2):
            raise InputError(f"expected two fields separated by {sep.strip() or 'TAB'!r}",
                             path=src, line=number)
        a, b = parts[0].strip(), parts[1].strip()
        if not a or not b:
            raise InputError("empty sentence on one side", path=src, line=number)
        s.append(a)
        t.append(b)
    return ParallelCorpus(s, t, name or corpus_name_from(src.stem))


def _sniff_single_file(path: Path) -> str:
    with path.open("rb") as fh:
        head = fh.read(4096).decode("utf-8", errors="replace")
    if " ||| " in head:
        return "fast_align"
    if "\t" in head:
        return "tsv"
    raise InputError("cannot tell the format: no ' ||| ' or TAB in the first lines; give a target "
                     "file for the two-file format", path=path)


def write_parallel(corpus: ParallelCorpus, src_path: str | Path, tgt_path: str | Path) -> None:
    """Write both sides as plain text files, atomically."""
    from alignment.atomic import write_text

    write_text(src_path, "".join(s + "\n" for s in corpus.src))
    write_text(tgt_path, "".join(t + "\n" for t in corpus.tgt))
