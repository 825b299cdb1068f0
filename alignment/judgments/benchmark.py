"""The benchmark contract: a registered reader of judged segments (and, where the data has
them, whole system outputs with system-level human scores), its published anchors and the
score columns it carries. ``crossalign data NAME`` and ``crossalign evaluate NAME`` go through
it; a new benchmark is one module and one ``register_benchmark`` call."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from alignment.catalogue import Registry
from alignment.errors import InputError

from .segments import JudgedSegments, concat, finite_number, prepared_files, read_judgments

if TYPE_CHECKING:
    from .word_level import LabelledWords


@dataclass(frozen=True)
class Anchor:
    """Published numbers to print beside measured rows: ``values`` by pair (and ``avg``)."""

    label: str
    values: dict[str, float]
    note: str = ""


@dataclass
class SystemOutputs:
    """One pair's whole test set as several MT systems translated it, with each system's
    human score (system-level evaluation)."""

    pair: str
    source: list[str]
    outputs: dict[str, list[str]]
    human: dict[str, float]


@dataclass(frozen=True)
class Benchmark:
    """One human-judgment benchmark.

    ``load(data, split, pairs)`` returns the judged segments of ``pairs`` (all when None) from
    ``data`` (a prepared folder, or a file for file benchmarks); ``prepare(source, out, pairs,
    progress)`` builds that folder from a clone of the public repository and returns its
    report; ``systems(data, pair)`` gives system outputs or None. ``baselines`` maps score
    columns the data carries to the row label they print under. ``words(data, split, pairs)``
    gives people's word labels (``word_level.LabelledWords``) where the data has them, and
    ``word_anchors`` the published word-level numbers."""

    name: str
    summary: str
    load: Callable[[Path, str, list[str] | None], JudgedSegments]
    pairs: tuple[str, ...] = ()
    splits: tuple[str, ...] = ("test",)
    default_data: str | None = None
    prepare: Callable[..., dict] | None = None
    systems: Callable[[Path, str], SystemOutputs | None] | None = None
    baselines: dict[str, str] = field(default_factory=dict)
    anchors: tuple[Anchor, ...] = ()
    source: str = ""
    words: Callable[[Path, str, list[str] | None], "LabelledWords"] | None = None
    word_anchors: tuple[Anchor, ...] = ()
    words_first: bool = False  # ``evaluate NAME`` measures the word labels by default
    scale: str = "people's scores"  # what the human scores are (a calibration maps to it)


BENCHMARKS: Registry[Benchmark] = Registry("benchmark")


def register_benchmark(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark``; a name may be registered once."""
    return BENCHMARKS.add(benchmark.name, benchmark)


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark called ``name``."""
    return BENCHMARKS.lookup(name)


def load_folder(data: Path, split: str, pairs: list[str] | None, known: tuple[str, ...],
                baselines: tuple[str, ...], name: str) -> JudgedSegments:
    """The judged segments of a prepared folder (``data/PAIR/SPLIT.tsv``), for ``pairs`` or for
    every pair present."""
    data = Path(data)
    parts = []
    for pair, path in prepared_files(data, f"{split}.tsv", pairs, known, name).items():
        part = read_judgments(path, baselines)
        wrong = sorted(set(part.lp) - {pair})
        if wrong:
            raise InputError(f"holds pair(s) {wrong}, not {pair}", path=data / pair / f"{split}.tsv")
        parts.append(part)
    return concat(parts)


def read_systems(data: Path, pair: str) -> SystemOutputs | None:
    """``data/PAIR/systems/``: ``source.txt``, ``human.tsv`` (system, score) and one
    ``SYSTEM.txt`` of outputs a system, line by line the translations of the source."""
    from alignment.data.corpus import read_lines

    folder = Path(data) / pair / "systems"
    if not (folder / "human.tsv").is_file():
        return None
    source = read_lines(folder / "source.txt")
    human: dict[str, float] = {}
    for number, line in enumerate((folder / "human.tsv").read_text(encoding="utf-8").splitlines(), 1):
        name, _, score = line.partition("\t")
        human[name] = finite_number(score, "score", folder / "human.tsv", number)
    outputs = {}
    for name in human:
        hyp = read_lines(folder / f"{name}.txt", allow_empty=True)
        if len(hyp) != len(source):
            raise InputError(f"{len(hyp)} lines for {len(source)} source lines",
                             path=folder / f"{name}.txt")
        outputs[name] = hyp
    return SystemOutputs(pair, source, outputs, human)
