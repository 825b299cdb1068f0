"""Eval4NLP 2021, explainable quality estimation (Fomicheva et al. 2021): per segment a source,
its MT output (both tokenised), a human score (DA) and, for every token, whether people marked
it as an error. Dev (ro-en, et-en; labels derived from post-edits, MLQE-PE's dev) and test21
(ro-en, et-en and the zero-shot de-zh, ru-de; errors marked by annotators as the explanation of
their score). The task's metrics: AUC, AP and recall at top-K of the word scores (MT side first),
and Pearson of the sentence score."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from alignment.errors import InputError

from .benchmark import Anchor, Benchmark, load_folder, register_benchmark
from .segments import JudgedSegments, finite_number, format_judgments
from .sources import (chosen_pairs, clone_folder, member_columns, sha256, tar_members,
                      write_data_folder)
from .word_level import LabelledWords, format_words, load_words, parse_tags

REPOSITORY = "eval4nlp/SharedTask2021"
PAIRS = ("ro-en", "et-en", "de-zh", "ru-de")
SPLITS = ("dev", "test21")
SPLIT_PAIRS = {"dev": ("ro-en", "et-en"), "test21": PAIRS}
MARKER = "scripts/evaluate.py"
LICENCE = ("no licence file in the repository; dev and train are adjusted MLQE-PE data "
           "(CC0 1.0); the test21 annotations are the organisers' (cite Fomicheva et al. 2021)")

WORD_ANCHORS = (
    Anchor("XMover-SHAP (XMoverScore explained by SHAP), dev, MT words: AUC",
           {"ro-en": .638, "et-en": .583}, "the task repository's baselines/README.md"),
    Anchor("XMover-SHAP, dev, MT words: AP", {"ro-en": .464, "et-en": .456},
           "the task repository's baselines/README.md"),
    Anchor("TransQuest-LIME (supervised QE explained by LIME), dev, MT words: AUC",
           {"ro-en": .619, "et-en": .592}, "the task repository's baselines/README.md"),
    Anchor("TransQuest-LIME, dev, MT words: AP", {"ro-en": .552, "et-en": .510},
           "the task repository's baselines/README.md"),
)
"""The published word-level anchors this repository states (dev split only)."""


def _read_pair(archive: Path, pair: str, split: str) -> tuple[JudgedSegments, LabelledWords]:
    """One ``PAIR-SPLIT.tar.gz``: its judged segments and labelled words, checked line by line."""
    f = member_columns(tar_members(archive), {part: f"/{split}.{part}" for part in
                                              ("src", "mt", "da", "tgt-tags", "src-tags")}, archive)
    where = (lambda part: f"{archive}!{split}.{part}")
    human, mt_tags, src_tags = [], [], []
    for k, (src, mt) in enumerate(zip(f["src"], f["mt"]), start=1):
        if not src.split() or not mt.split():
            raise InputError("empty source or MT output", path=where("src"), line=k)
        human.append(finite_number(f["da"][k - 1], "score", where("da"), k))
        mt_tags.append(parse_tags(f["tgt-tags"][k - 1], len(mt.split()), "MT tags",
                                  where("tgt-tags"), k))
        src_tags.append(parse_tags(f["src-tags"][k - 1], len(src.split()), "source tags",
                                   where("src-tags"), k))
    n = len(f["src"])
    src = [" ".join(s.split()) for s in f["src"]]
    mt = [" ".join(s.split()) for s in f["mt"]]
    return (JudgedSegments([pair] * n, src, mt, np.asarray(human)),
            LabelledWords([pair] * n, src, mt, mt_tags, src_tags))


def prepare(source: str | Path | None, out: str | Path, pairs: list[str] | None = None,
            progress: bool = True) -> dict:
    """Build ``out/PAIR/{SPLIT.tsv, SPLIT.words.tsv}`` for dev and test21 and
    ``out/provenance.json`` from a clone of the task's repository (whole, or not at all)."""
    from alignment.atomic import check_output_dir

    chosen = chosen_pairs(pairs, PAIRS, "Eval4NLP 2021")
    check_output_dir(out, "provenance.json")
    clone = clone_folder(source, REPOSITORY, MARKER, "crossalign data eval4nlp")
    used: dict[str, str] = {}
    files: dict[str, str] = {}
    built: dict[str, dict] = {}
    for pair in chosen:
        counts = {}
        for split in SPLITS:
            if pair not in SPLIT_PAIRS[split]:
                continue
            archive = clone / "data" / split / f"{pair}-{split}.tar.gz"
            judged, words = _read_pair(archive, pair, split)
            used[archive.relative_to(clone).as_posix()] = sha256(archive)
            files[f"{pair}/{split}.tsv"] = format_judgments(judged)
            files[f"{pair}/{split}.words.tsv"] = format_words(words)
            counts[f"{split}_segments"] = len(judged)
            counts[f"{split}_error_share"] = round(float(np.mean(np.concatenate(words.mt_tags))), 4)
        built[pair] = counts
    return write_data_folder(out, files, "eval4nlp", REPOSITORY, clone, LICENCE, built, used)


def load(data: Path, split: str = "test21", pairs: list[str] | None = None) -> JudgedSegments:
    return load_folder(data, split, pairs, PAIRS, (), "eval4nlp")


def words(data: Path, split: str = "test21", pairs: list[str] | None = None) -> LabelledWords:
    return load_words(data, split, pairs, PAIRS, "eval4nlp")


BENCHMARK = register_benchmark(Benchmark(
    "eval4nlp", "Eval4NLP 2021 explainable QE: which MT words are errors (AUC, AP, recall at "
    "top-K) and the sentence score; dev for choosing, test21 for reporting", load, PAIRS, SPLITS,
    "data/eval4nlp", prepare, None, {}, (), REPOSITORY, words=words, word_anchors=WORD_ANCHORS,
    words_first=True, scale="Eval4NLP sentence score"))
