"""MLQE-PE (Fomicheva et al. 2020), the WMT20 quality-estimation data: per pair 7,000 / 1,000 /
1,000 segments (train / dev / test) of Wikipedia sentences translated by one NMT system and
judged by people (``z_mean``), with the system's own log-probability (``model_scores``) and no
reference. Training text: the post-edited train split (source, post-edit), never dev or test."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from alignment.errors import InputError

from .benchmark import Anchor, Benchmark, load_folder, register_benchmark
from .segments import JudgedSegments, finite_number, format_judgments
from .word_level import LabelledWords, format_words, load_words, parse_tags
from .sources import (chosen_pairs, clone_folder, member_columns, member_lines, normalised,
                      sha256, tar_members, write_data_folder)

REPOSITORY = "sheffieldnlp/mlqe-pe"
PAIRS = ("ro-en", "et-en", "ne-en", "si-en", "ru-en", "en-de", "en-zh")
SPLITS = ("dev", "test")
MARKER = "data/direct-assessments/test/ro-en-test.tar.gz"
LICENCE = "CC0 1.0 (the repository's LICENSE)"
COLUMNS = ["index", "original", "translation", "scores", "mean", "z_scores", "z_mean", "model_scores"]

ANCHORS = (
    Anchor("MT system's log-probability, glass-box (needs the MT model)",
           {"ro-en": .647, "et-en": .486, "ne-en": .483, "si-en": .401, "ru-en": .536,
            "avg": .511}, "Fomicheva et al. 2020 / WMT20 QE"),
    Anchor("OpenKiwi, supervised on the human scores (the task's baseline)",
           {"ro-en": .685, "et-en": .477, "ne-en": .386, "si-en": .374, "ru-en": .548,
            "avg": .494}, "WMT20 QE task 1"),
    Anchor("TransQuest, supervised (the task's winner)",
           {"ro-en": .908, "et-en": .824, "ne-en": .822, "si-en": .685, "ru-en": .808,
            "avg": .809}, "WMT20 QE task 1"),
)


def archive_segments(archive: Path, pair: str) -> JudgedSegments:
    """The judged segments of one ``<pair>-<split>.tar.gz``."""
    files = tar_members(archive)
    name, lines = member_lines(files, ".df.short.tsv", archive)
    rows = list(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    where = f"{archive}!{name}"
    if not rows or rows[0][0] not in ("index", "segid") or rows[0][1:] != COLUMNS[1:]:
        raise InputError(f"header is not {COLUMNS} (or segid first)", path=where, line=1)
    src, mt, human, model = [], [], [], []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(COLUMNS):
            raise InputError(f"{len(row)} fields, the header has {len(COLUMNS)}", path=where,
                             line=number)
        if not row[1].strip() or not row[2].strip():
            raise InputError("empty source or translation", path=where, line=number)
        human.append(finite_number(row[6], "z_mean", where, number))
        model.append(finite_number(row[7], "model_scores", where, number))
        src.append(row[1])
        mt.append(row[2])
    return JudgedSegments([pair] * len(src), src, mt, np.asarray(human),
                          baselines={"model_score": np.asarray(model)})


def _word_tags(archive: Path, pair: str, name: str) -> LabelledWords:
    """The OK/BAD tags of one post-editing ``<pair>-<split>.tar.gz`` (WMT20 QE task 2): the MT
    words' tags (the gap tags between them left out, as Eval4NLP leaves them out) and the
    source words' tags, on the tokenised source and MT output."""
    lines = member_columns(tar_members(archive), {part: f"/{name}.{part}" for part in
                                                  ("src", "mt", "tags", "source_tags")}, archive)
    mt_tags, src_tags = [], []
    for k, (src, mt) in enumerate(zip(lines["src"], lines["mt"]), start=1):
        where = f"{archive}!{name}.tags"
        with_gaps = parse_tags(lines["tags"][k - 1], 2 * len(mt.split()) + 1, "MT and gap tags",
                               where, k)
        mt_tags.append(with_gaps[1::2])
        src_tags.append(parse_tags(lines["source_tags"][k - 1], len(src.split()), "source tags",
                                   f"{archive}!{name}.source_tags", k))
    n = len(lines["mt"])
    return LabelledWords([pair] * n, [" ".join(s.split()) for s in lines["src"]],
                         [" ".join(s.split()) for s in lines["mt"]], mt_tags, src_tags)


def prepare(source: str | Path | None, out: str | Path, pairs: list[str] | None = None,
            progress: bool = True) -> dict:
    """Build ``out/PAIR/{dev.tsv, test.tsv, train.SRC, train.TGT}`` and ``out/provenance.json``
    from a clone of the public repository (whole, or not at all); where the clone has the
    post-editing dev and test archives, also ``PAIR/{dev,test}.words.tsv`` (word tags)."""
    from alignment.atomic import check_output_dir

    chosen = chosen_pairs(pairs, PAIRS, "MLQE-PE")
    check_output_dir(out, "provenance.json")
    clone = clone_folder(source, REPOSITORY, MARKER, "crossalign data mlqe")
    used: dict[str, str] = {}
    files: dict[str, str] = {}
    built: dict[str, dict] = {}
    for pair in chosen:
        sl, tl = pair.split("-")
        judged: set[str] = set()
        counts, labelled = {}, {}
        for split in SPLITS:
            archive = clone / "data" / "direct-assessments" / split / f"{pair}-{split}.tar.gz"
            data = archive_segments(archive, pair)
            used[archive.relative_to(clone).as_posix()] = sha256(archive)
            files[f"{pair}/{split}.tsv"] = format_judgments(data)
            judged |= {normalised(s) for s in data.src}
            counts[split] = len(data)
        for split, name in (("dev", "dev"), ("test", "test20")):  # word tags, where cloned
            archive = clone / "data" / "post-editing" / split / f"{pair}-{split}.tar.gz"
            if archive.is_file():
                tagged = _word_tags(archive, pair, name)
                files[f"{pair}/{split}.words.tsv"] = format_words(tagged)
                used[archive.relative_to(clone).as_posix()] = sha256(archive)
                labelled[f"{split}_labelled_sentences"] = len(tagged)
        archive = clone / "data" / "post-editing" / "train" / f"{pair}-train.tar.gz"
        members = tar_members(archive)
        used[archive.relative_to(clone).as_posix()] = sha256(archive)
        _, src = member_lines(members, "/train.src", archive)
        _, pe = member_lines(members, "/train.pe", archive)
        if len(src) != len(pe):
            raise InputError(f"train.src has {len(src)} lines, train.pe {len(pe)}", path=archive)
        seen, kept = set(), []
        for a, b in zip(src, pe):
            key = (normalised(a), normalised(b))
            if key[0] and key[1] and key[0] not in judged and key not in seen:
                seen.add(key)
                kept.append((" ".join(a.split()), " ".join(b.split())))
        files[f"{pair}/train.{sl}"] = "".join(a + "\n" for a, _ in kept)
        files[f"{pair}/train.{tl}"] = "".join(b + "\n" for _, b in kept)
        built[pair] = {**{f"{s}_segments": n for s, n in counts.items()},
                       "training_pairs": len(kept), "training_from": "post-editing train split", **labelled}
    return write_data_folder(out, files, "mlqe", REPOSITORY, clone, LICENCE, built, used)


def load(data: Path, split: str = "test", pairs: list[str] | None = None) -> JudgedSegments:
    return load_folder(data, split, pairs, PAIRS, ("model_score",), "mlqe")


def words(data: Path, split: str = "test", pairs: list[str] | None = None) -> LabelledWords:
    """The post-editing word tags of dev or test (test20: the direct assessments' test
    sentences, tokenised), as ``data mlqe`` wrote them from the clone."""
    return load_words(data, split, pairs, PAIRS, "mlqe")


BENCHMARK = register_benchmark(Benchmark(
    "mlqe", "MLQE-PE (WMT20 QE) direct assessments, no reference; dev for choosing settings, "
    "test for reporting", load, PAIRS, SPLITS, "data/mlqe", prepare, None,
    {"model_score": "MT system's log-probability (glass-box)"}, ANCHORS, REPOSITORY, words=words,
    scale="MLQE-PE DA z-score"))
