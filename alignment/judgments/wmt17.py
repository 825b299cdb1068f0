"""WMT17 segment-level direct assessments, to English (the benchmark of Zhao et al. 2020,
Table 1), as the public repository AIPHES/ACL20-Reference-Free-MT-Evaluation ships them:
560 judged segments a pair (lv-en 435) with SentBLEU, the system outputs and system-level
human scores; newstest2018/2019 as training text that no judged segment comes from."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from alignment.errors import InputError

from .benchmark import Anchor, Benchmark, load_folder, read_systems, register_benchmark
from .segments import JudgedSegments, finite_number, format_judgments
from .sources import chosen_pairs, clone_folder, normalised, sha256, text_lines, write_data_folder

REPOSITORY = "AIPHES/ACL20-Reference-Free-MT-Evaluation"
PAIRS = ("cs-en", "de-en", "fi-en", "lv-en", "ru-en", "tr-en", "zh-en")
MARKER = "WMT17/testset/testset_de-en.tsv"
LICENCE = ("code Apache-2.0 (the repository's LICENSE); WMT17 test sets, system outputs and "
           "human judgments as released by WMT for research use")
HEADER = ["LP", "source", "translation", "reference", "HUMAN_score", "sentBLEU"]

ANCHORS = (
    Anchor("paper: Mover-1 + M-BERT (unmapped)",
           {"cs-en": .227, "de-en": .371, "fi-en": .348, "lv-en": .260, "ru-en": .267,
            "tr-en": .425, "zh-en": .482, "avg": .340}, "Zhao et al. 2020, Table 1"),
    Anchor("paper: Mover-2 + CLP(M-BERT)",
           {"cs-en": .337, "de-en": .388, "fi-en": .522, "lv-en": .503, "ru-en": .354,
            "tr-en": .510, "zh-en": .533, "avg": .450}, "Zhao et al. 2020, Table 1"),
    Anchor("paper: Mover-2 + CLP(M-BERT) ⊕ LM",
           {"cs-en": .465, "de-en": .464, "fi-en": .633, "lv-en": .638, "ru-en": .476,
            "tr-en": .555, "zh-en": .535, "avg": .538}, "Zhao et al. 2020, Table 1"),
)


def _testset(path: Path, pair: str) -> list[list[str]]:
    """The released test set: a tab-separated CSV whose fields holding a quotation mark are
    wrapped in quotation marks with inner ones doubled (as pandas writes CSV); the public code
    reads it with pandas' defaults, which unquote such fields, and so does this."""
    with path.open(encoding="utf-8", newline="") as fh:
        try:
            rows = list(csv.reader(fh, delimiter="\t", strict=True))
        except csv.Error as err:
            raise InputError(f"not a tab-separated CSV ({err})", path=path) from None
    if not rows or rows[0] != HEADER:
        raise InputError(f"header is not {HEADER}", path=path, line=1)
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(HEADER):
            raise InputError(f"{len(row)} fields, the header has {len(HEADER)}", path=path, line=number)
        if row[0] != pair:
            raise InputError(f"pair '{row[0]}', expected {pair}", path=path, line=number)
        for k in (4, 5):
            finite_number(row[k], HEADER[k], path, number)
    return rows[1:]


def _seglevel(path: Path) -> dict[str, list[tuple[str, int, float]]]:
    """DA-seglevel.csv: (system, sentence id, human score) by pair."""
    out: dict[str, list[tuple[str, int, float]]] = {}
    for number, line in enumerate(text_lines(path)[1:], start=2):
        cells = line.split()
        if len(cells) != 5:
            raise InputError(f"{len(cells)} fields, expected 5 (LP DATA SYSTEM SID HUMAN)",
                             path=path, line=number)
        try:
            sid = int(cells[3])
        except ValueError:
            raise InputError(f"SID '{cells[3]}' is not a whole number", path=path,
                             line=number) from None
        out.setdefault(cells[0], []).append(
            (cells[2], sid, finite_number(cells[4], "HUMAN", path, number)))
    return out


def _syslevel(path: Path, pair: str) -> dict[str, float]:
    out = {}
    for number, line in enumerate(text_lines(path)[1:], start=2):
        cells = line.split()
        if len(cells) != 3:
            raise InputError(f"{len(cells)} fields, expected 3 (LP HUMAN SYSTEM)", path=path,
                             line=number)
        if cells[0] == pair:
            out[cells[2]] = finite_number(cells[1], "HUMAN", path, number)
    return out


def _parallel(src: Path, ref: Path) -> list[tuple[str, str]]:
    a, b = text_lines(src), text_lines(ref)
    if len(a) != len(b):
        raise InputError(f"{len(a)} lines, but {ref} has {len(b)}", path=src)
    return list(zip(a, b))


def training_text(clone: Path, pair: str, judged_sids: set[int], judged: set[str],
                  used: dict[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Parallel (source, English) lines no judged segment comes from: newstest2018/2019 in both
    directions where they exist; for a pair without later sets (lv), the newstest2017 lines
    that are not judged. Lines whose source or English side equals a judged source or
    reference (case and spacing aside) are dropped, and so are repeats."""
    lang = pair.split("-")[0]
    files = []
    for year in (2018, 2019):
        base = clone / f"WMT{year % 100}"
        files.append((base / "source" / f"newstest{year}-{lang}en-src.{lang}",
                      base / "references" / f"newstest{year}-{lang}en-ref.en", False))
        files.append((base / "source" / f"newstest{year}-en{lang}-src.en",
                      base / "references" / f"newstest{year}-en{lang}-ref.{lang}", True))
    pairs: list[tuple[str, str]] = []
    sets = []
    for src, ref, reverse in files:
        if src.is_file() and ref.is_file():
            rows = _parallel(src, ref)
            pairs += [(b, a) for a, b in rows] if reverse else rows
            sets.append(src.name)
            used[src.relative_to(clone).as_posix()] = sha256(src)
            used[ref.relative_to(clone).as_posix()] = sha256(ref)
    if not pairs:  # no later test set: the unjudged lines of newstest2017
        src = clone / "WMT17" / "source" / f"newstest2017-{lang}en-src.{lang}"
        ref = clone / "WMT17" / "references" / f"newstest2017-{lang}en-ref.en"
        rows = _parallel(src, ref)
        pairs = [row for sid, row in enumerate(rows, start=1) if sid not in judged_sids]
        sets.append(f"{src.name} without its {len(rows) - len(pairs)} judged lines")
        used[src.relative_to(clone).as_posix()] = sha256(src)
        used[ref.relative_to(clone).as_posix()] = sha256(ref)
    seen: set[tuple[str, str]] = set()
    kept = []
    for a, b in pairs:
        key = (normalised(a), normalised(b))
        if not key[0] or not key[1] or key[0] in judged or key[1] in judged or key in seen:
            continue
        seen.add(key)
        kept.append((" ".join(a.split()), " ".join(b.split())))
    return kept, sets


def prepare(source: str | Path | None, out: str | Path, pairs: list[str] | None = None,
            progress: bool = True) -> dict:
    """Build ``out/PAIR/{test.tsv, train.SRC, train.en, systems/}`` and ``out/provenance.json``
    from a clone of the public repository; everything is checked before the folder is
    written, and the folder appears whole or not at all."""
    from alignment.atomic import check_output_dir

    chosen = chosen_pairs(pairs, PAIRS, "WMT17 here")
    check_output_dir(out, "provenance.json")
    clone = clone_folder(source, REPOSITORY, MARKER, "crossalign data wmt17")
    seg = _seglevel(clone / "WMT17" / "DA-seglevel.csv")
    used = {"WMT17/DA-seglevel.csv": sha256(clone / "WMT17" / "DA-seglevel.csv"),
            "WMT17/DA-syslevel.csv": sha256(clone / "WMT17" / "DA-syslevel.csv")}
    built: dict[str, dict] = {}
    files: dict[str, str] = {}
    for pair in chosen:
        lang = pair.split("-")[0]
        test = clone / "WMT17" / "testset" / f"testset_{pair}.tsv"
        if not test.is_file():
            raise InputError(f"{test} is missing: the clone lacks pair {pair}", parameter="from")
        rows = _testset(test, pair)
        used[test.relative_to(clone).as_posix()] = sha256(test)
        by_score: dict[float, list[tuple[str, int]]] = {}
        for system, sid, human in seg.get(pair, []):
            by_score.setdefault(round(human, 9), []).append((system, sid))
        systems, sids = [], set()
        for row in rows:  # DA-seglevel gives each judged segment's system and sentence id
            match = by_score.get(round(float(row[4]), 9))
            system, sid = match.pop(0) if match else ("", 0)
            systems.append(system)
            sids.add(sid)
        data = JudgedSegments([pair] * len(rows), [r[1] for r in rows], [r[2] for r in rows],
                              np.array([float(r[4]) for r in rows]), [r[3] for r in rows],
                              systems, {"sentbleu": np.array([float(r[5]) for r in rows])})
        judged_sids = {sid for _, sid, _ in seg.get(pair, [])} | sids
        judged = {normalised(s) for s in data.src} | {normalised(s) for s in data.ref}
        train, sets = training_text(clone, pair, judged_sids, judged, used)
        files[f"{pair}/test.tsv"] = format_judgments(data)
        files[f"{pair}/train.{lang}"] = "".join(a + "\n" for a, _ in train)
        files[f"{pair}/train.en"] = "".join(b + "\n" for _, b in train)
        human = _syslevel(clone / "WMT17" / "DA-syslevel.csv", pair)
        src_file = clone / "WMT17" / "source" / f"newstest2017-{lang}en-src.{lang}"
        source_lines = text_lines(src_file, allow_empty=False)
        used[src_file.relative_to(clone).as_posix()] = sha256(src_file)
        n_sys = 0
        for system, score in sorted(human.items()):
            out_file = clone / "WMT17" / "system-outputs" / pair / f"newstest2017.{system}.{pair}"
            if not out_file.is_file():
                continue
            hyp = text_lines(out_file)
            if len(hyp) != len(source_lines):
                raise InputError(f"{len(hyp)} lines for the {len(source_lines)} of {src_file}",
                                 path=out_file)
            used[out_file.relative_to(clone).as_posix()] = sha256(out_file)
            files[f"{pair}/systems/{system}.txt"] = "".join(h + "\n" for h in hyp)
            n_sys += 1
        if n_sys:
            files[f"{pair}/systems/source.txt"] = "".join(s + "\n" for s in source_lines)
            files[f"{pair}/systems/human.tsv"] = "".join(
                f"{s}\t{v!r}\n" for s, v in sorted(human.items())
                if f"{pair}/systems/{s}.txt" in files)
        built[pair] = {"judged_segments": len(data), "systems_of_segments": len(set(systems) - {""}),
                       "training_pairs": len(train), "training_from": sets,
                       "system_outputs": n_sys}
    return write_data_folder(out, files, "wmt17", REPOSITORY, clone, LICENCE, built, used)


def load(data: Path, split: str = "test", pairs: list[str] | None = None) -> JudgedSegments:
    return load_folder(data, split, pairs, PAIRS, ("sentbleu",), "wmt17")


BENCHMARK = register_benchmark(Benchmark(
    "wmt17", "WMT17 segment-level direct assessments, 7 pairs to English (Zhao et al. 2020, "
    "Table 1); reference and SentBLEU in the data, system outputs for system level",
    load, PAIRS, ("test",), "data/wmt17", prepare, read_systems, {"sentbleu": "SentBLEU (reads the reference)"},
    ANCHORS, REPOSITORY, scale="WMT17 DA z-score"))
