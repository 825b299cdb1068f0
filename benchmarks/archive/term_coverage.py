"""Which languages Gemma 3 270M reads, measured: on the same UI messages translated into each
language (the machine's gettext catalogues), how much more likely Gemma finds the English
message after ``X: TRANSLATION\\nEnglish:`` than after ``English:`` alone (mean token
log-probability, nats; bootstrap interval over messages). A language Gemma does not read
tells it little about the English: the gain falls towards 0, and the ``gemma-given-source``
term has nothing to add for that source language.

    python benchmarks/archive/term_coverage.py --messages 100 --out benchmarks/results/term_coverage
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.harness import write_result  # noqa: E402


def shared_messages(languages: list[str], n: int, min_words: int = 3
                    ) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """The English of ``n`` messages every language in ``languages`` translates (each side
    passing ``data parallel``'s checks), in the order of their ids; each language's
    translations; the languages left out for having no catalogue."""
    from alignment.data.packaged_pairs import gettext_pairs, pair_problem
    from alignment.errors import InputError

    found: dict[str, dict[str, tuple[str, str]]] = {}
    missing = []
    for lang in languages:
        try:
            pairs, _ = gettext_pairs(lang)
        except InputError:  # no catalogue folder for this language on this machine
            missing.append(lang)
            continue
        kept = {}
        for key, src, en in zip(pairs.ids, pairs.src, pairs.en):
            if key not in kept and len(en.split()) >= min_words and \
                    pair_problem(src, en, lang) is None:
                kept[key] = (src, en)
        if len(kept) < n:
            missing.append(lang)
            continue
        found[lang] = kept
    common = sorted(set.intersection(*(set(k) for k in found.values())))
    if len(common) < n:  # drop the languages with the fewest messages until n are shared
        for lang in sorted(found, key=lambda x: len(found[x])):
            del found[lang]
            missing.append(lang)
            common = sorted(set.intersection(*(set(k) for k in found.values())))
            if len(common) >= n:
                break
    ids = common[:n]
    english = [found[next(iter(found))][k][1] for k in ids]
    return english, {lang: [kept[k][0] for k in ids] for lang, kept in found.items()}, missing


def main() -> None:
    from alignment.evaluation.retrieval import paired_bootstrap
    from alignment.terms.source_lm import LANGUAGE_NAMES
    from alignment.terms.gemma_given_source import SourceConditionedLM

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=100)
    ap.add_argument("--languages", nargs="*", default=sorted(set(LANGUAGE_NAMES) - {"en"}))
    ap.add_argument("--out", default="benchmarks/results/term_coverage")
    args = ap.parse_args()
    english, translations, missing = shared_messages(args.languages, args.messages)
    alone = SourceConditionedLM(prompt="{target_language}:")(english, english, ("en", "en"))
    given_lm = SourceConditionedLM()
    rows = []
    for lang, src in sorted(translations.items()):
        gain, lo, hi = paired_bootstrap(given_lm(src, english, (lang, "en")), alone)
        rows.append({"language": lang, "name": LANGUAGE_NAMES.get(lang, lang),
                     "gain": gain, "lo": lo, "hi": hi})
        print(f"{lang}  {rows[-1]['gain']:+.3f} [{lo:+.3f}, {hi:+.3f}]", flush=True)
    rows.sort(key=lambda r: -r["gain"])
    lines = [f"Gemma 3 270M: gain in the English's mean token log-probability (nats) from the "
             f"translation, {len(english)} gettext messages every language translates",
             "", "| language | gain [95% CI] |", "|---|---|"]
    lines += [f"| {r['name']} ({r['language']}) | {r['gain']:+.3f} [{r['lo']:+.3f}, "
              f"{r['hi']:+.3f}] |" for r in rows]
    if missing:
        lines += ["", f"left out (no catalogue or too few shared messages): {' '.join(missing)}"]
    table = "\n".join(lines)
    print(table)
    write_result(args.out, {"messages": len(english), "english_alone": float(alone.mean()),
                            "rows": rows, "left_out": missing,
                            "command": " ".join(sys.argv)}, table)


if __name__ == "__main__":
    main()
