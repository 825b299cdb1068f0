"""A stronger cross-lingual view from more parallel text: each shipped export's sentence map
refitted (least squares, the shipped kind, encoder and layer) on the translations the machine's
packages carry (``crossalign data parallel``: gettext catalogues and LibreOffice's help, UI
messages and help paragraphs), on 10k, 50k and all of them, and on the benchmark's own pairs
with all of them — measured alone and in each direction's one setting. From English (MLQE-PE
en-de, en-zh) the map's weight beside the shipped setting is chosen on MLQE-PE dev; into
English (WMT17 de-en, zh-en, test only) the shipped weight is kept and only the map changes.

    crossalign data mlqe --from CLONE_OF_MLQE_PE && crossalign data wmt17 --from CLONE_OF_ACL20
    crossalign data parallel --pair de-en && crossalign data parallel --pair zh-en
    python benchmarks/archive/more_parallel_text.py        # → benchmarks/results/more_parallel_text.{md,json}

Sentence vectors are reused from ``$CROSSALIGN_CACHE/reuse`` (an encoder pass over every pair
is the cost: about 13 ms a sentence on 2 CPU cores). Each map also reports P@1 of retrieving
the translation among the packaged text's 1,000 held-out pairs (its own domain), which shows
the fit learned before any agreement with people is read."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from alignment.data.corpus import read_lines
from alignment.export.named import resolve_export
from alignment.evaluation.csls import precision_at_1
from alignment.export.remapped import load_remapped
from alignment.judgments.agreement import Row, mean_pearson, segment_agreement
from alignment.xmover.lm import LanguageModelScorer
from alignment.xmover.reuse import default_reuse, reuse_encodings, reuse_lm
from alignment.xmover.sentence_vectors import SentenceSimilarity
from alignment.xmover.sentence_map import (SentenceMap, fit_sentence_map, map_vectors,
                                           resolve_sentence_map)
from alignment.terms import Setting
from benchmarks.agreement_with_people import markdown
from benchmarks.archive.every_direction import ENGLISH_LM, FROM_ENGLISH, GEMMA, TO_ENGLISH, term_values
from benchmarks.harness import ROOT, judged, write_result

DIRECTIONS = {  # name: (benchmark, pairs, into English)
    "MLQE-PE, from English": ("mlqe", ["en-de", "en-zh"], False),
    "WMT17 test, to English": ("wmt17", ["de-en", "zh-en"], True),
}
SIZES = (10_000, 50_000)  # and all the pairs (zh-en has 40,647: its 50k is all of them)
OWN = 7000  # the shipped maps' own pairs (the benchmark's training text)
SENTENCE_GRID = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)  # the map's weight beside the shipped setting


def foreign(pair: str) -> str:
    return pair.replace("en-", "").replace("-en", "")


def packaged_text(data: Path, lang: str, split: str) -> tuple[list[str], list[str]]:
    """(foreign, English) lines of ``crossalign data parallel --pair LANG-en``'s ``split``."""
    folder = data / f"parallel-{lang}-en"
    return read_lines(folder / f"{split}.{lang}"), read_lines(folder / f"{split}.en")


def own_text(data: Path, bench: str, pair: str) -> tuple[list[str], list[str]]:
    """(foreign, English) lines of the benchmark's training text, the first ``OWN`` pairs."""
    lang = foreign(pair)
    folder = data / bench / pair
    return read_lines(folder / f"train.{lang}")[:OWN], read_lines(folder / "train.en")[:OWN]


def refits(term: SentenceSimilarity, shipped: SentenceMap, data: Path, bench: str,
           pair: str, limit: int = 0) -> dict[str, SentenceMap]:
    """The shipped map and its refits on the packaged text (10k, 50k, all; ``limit`` > 0: at
    most that many pairs) and on the benchmark's own pairs with all of it; the mapped side is
    the shipped map's."""
    lang = foreign(pair)
    fo, en = packaged_text(data, lang, "train")
    fo, en = fo[:limit or None], en[:limit or None]
    vec = {lang: map_vectors(term, fo, True, f"packaged {lang}"),
           "en": map_vectors(term, en, True, "packaged en")}
    ofo, oen = own_text(data, bench, pair)
    own = {lang: map_vectors(term, ofo, True, f"own {lang}"),
           "en": map_vectors(term, oen, True, "own en")}
    a, b = shipped.mapped_lang, shipped.other_lang

    def fit(x: np.ndarray, y: np.ndarray, n: int) -> SentenceMap:
        return fit_sentence_map(x, y, "least-squares", a, b, shipped.student,
                                data={"n_pairs": n})

    out = {"own pairs (shipped)": shipped}  # the benchmark's training text, up to OWN pairs
    for size in SIZES:  # a corpus smaller than the size: all of it
        out[f"packaged {size // 1000}k"] = fit(vec[a][:size], vec[b][:size], min(size, len(fo)))
    out["packaged all"] = fit(vec[a], vec[b], len(fo))
    out[f"own {OWN} + packaged all"] = fit(np.vstack([own[a], vec[a]]),
                                          np.vstack([own[b], vec[b]]), OWN + len(fo))
    return out


def retrieval_p1(term: SentenceSimilarity, maps: dict[str, SentenceMap], data: Path,
                 lang: str) -> dict[str, float]:
    """Each map's P@1 of finding each mapped sentence's translation among the packaged test
    split's (the split encoded once)."""
    fo, en = packaged_text(data, lang, "test")
    vec = {lang: map_vectors(term, fo), "en": map_vectors(term, en)}
    return {label: precision_at_1(torch.from_numpy(m.map(vec[m.mapped_lang])),
                                  torch.from_numpy(m.centre(vec[m.other_lang])))
            for label, m in maps.items()}


def map_terms(term: SentenceSimilarity, maps: dict[str, SentenceMap], segs, idx: np.ndarray,
              pair: str) -> dict[str, np.ndarray]:
    """Each map's sentence term on the segments ``idx`` of ``pair`` (source ``pair[:2]``)."""
    src_lang, _ = pair.split("-")
    src = map_vectors(term, [segs.src[i] for i in idx])
    mt = map_vectors(term, [segs.mt[i] for i in idx])
    return {label: (m.similarity(src, mt) if m.mapped_lang == src_lang else m.similarity(mt, src))
            for label, m in maps.items()}


def direction(name: str, data: Path, lms: dict[str, LanguageModelScorer],
              limit: int = 0) -> tuple[dict, str]:
    """The direction's rows: each map alone, the shipped setting, the setting with each map
    (from English at the weight chosen on dev); its P@1 and its tables."""
    bench, pairs, into_english = DIRECTIONS[name]
    splits = ["test"] if into_english else ["dev", "test"]
    needed = {ENGLISH_LM: lms[ENGLISH_LM]} if into_english else {GEMMA: lms[GEMMA]}
    scorers, p1 = {}, {}  # per pair: the sentence term and its maps, fitted once
    for pair in pairs:
        export = resolve_export(f"{bench}/{pair}")
        encoder = load_remapped(export).encoder
        shipped = resolve_sentence_map(export)
        term = SentenceSimilarity(encoder, shipped.student["layer"], shipped.student["prefix"])
        reuse_encodings(encoder, default_reuse(), term)
        scorers[pair] = term, refits(term, shipped, data, bench, pair, limit)
        p1[pair] = retrieval_p1(term, scorers[pair][1], data, foreign(pair))
    labels = list(scorers[pairs[0]][1])
    per_split = {}
    for split in splits:
        segs = judged(bench, data, split, pairs)
        values = term_values(bench, segs, into_english, needed, use=not into_english)
        sentence = {label: np.zeros(len(segs)) for label in labels}
        for pair, (term, maps) in scorers.items():
            idx = np.flatnonzero(np.asarray(segs.lp) == pair)
            for label, s in map_terms(term, maps, segs, idx, pair).items():
                sentence[label][idx] = s
        per_split[split] = (segs, values, sentence)
    model = ENGLISH_LM if into_english else GEMMA
    setting = dict((TO_ENGLISH if into_english else FROM_ENGLISH).weights)

    def combined(split: str, label: str, weight: float) -> np.ndarray:
        segs, values, sentence = per_split[split]
        return Setting.of(**dict(setting, sentence=weight)).combine(
            {**values, "lm": values[model], "sentence": sentence[label]})

    chosen = {}
    for label in labels:
        if into_english:
            chosen[label] = {"weight": dict(setting)["sentence"]}
        else:
            dev = per_split["dev"][0]
            scores = {w: mean_pearson(dev, combined("dev", label, w)) for w in SENTENCE_GRID}
            best = max(scores, key=scores.get)
            chosen[label] = {"weight": best, "dev": scores[best], "grid": scores}
    segs, _, sentence = per_split["test"]
    rows = [Row(f"sentence map alone: {label}", sentence[label], f"map fitted on {label}")
            for label in labels]
    if not into_english:  # what the maps add to the rest of the setting
        rows.append(Row("shipped setting without a sentence map (weight 0)",
                        combined("test", labels[0], 0.0), "as the exports score"))
    rows += [Row(f"shipped setting, map {label} at {chosen[label]['weight']:g}",
                 combined("test", label, chosen[label]["weight"]), f"map fitted on {label}")
             for label in labels]
    metrics = segment_agreement(segs, rows)
    table = markdown(metrics, [r.label for r in rows], pairs, [])
    p1_table = "| map | " + " | ".join(pairs) + " |\n|---|" + "---|" * len(pairs) + "\n" + "\n".join(
        f"| {label} | " + " | ".join(f"{p1[p][label]:.3f}" for p in pairs) + " |"
        for label in labels)
    text = (f"### {name}\n\n{table}\n\nP@1 on the packaged text's held-out 1,000 pairs:\n\n"
            f"{p1_table}")
    return {"pairs": pairs, "rows": [r.label for r in rows], "metrics": metrics, "p1": p1,
            "chosen_on_dev": chosen}, text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--directions", nargs="+", choices=list(DIRECTIONS), default=list(DIRECTIONS))
    ap.add_argument("--data", default=str(ROOT / "data"))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "more_parallel_text"))
    ap.add_argument("--limit", type=int, default=0,
                    help="fit on at most this many packaged pairs (a quick run)")
    args = ap.parse_args()
    lms = {name: reuse_lm(LanguageModelScorer(name), default_reuse())
           for name in (ENGLISH_LM, GEMMA)}
    result, tables = {}, []
    for name in args.directions:
        start = time.perf_counter()
        result[name], text = direction(name, Path(args.data), lms, args.limit)
        result[name]["seconds"] = time.perf_counter() - start
        tables.append(text)
        print(text, flush=True)
    write_result(args.out, result, "\n\n".join(tables))


if __name__ == "__main__":
    main()
