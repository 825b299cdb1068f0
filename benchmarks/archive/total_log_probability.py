"""Gemma's total log-probability of the output given the source (``gemma-given-source-total``)
beside the setting every to-English export shipped with before it, on WMT17 test and MLQE-PE
test into English. The term's weight was chosen by ``crossalign choose`` on MLQE-PE dev
(docs/toward_anchors.md gives the command); no test score sets it.

    crossalign data wmt17 --from CLONE_OF_ACL20 && crossalign data mlqe --from CLONE_OF_MLQE_PE
    pip install -e ".[gemma]"
    python benchmarks/archive/total_log_probability.py   # → benchmarks/results/total_log_probability.{md,json}

Every value comes from the product's scorer and registered terms, reused from the cache
(``$CROSSALIGN_CACHE/reuse``): the total needs no Gemma pass beyond the mean's."""
from __future__ import annotations

import argparse

import numpy as np

from alignment.judgments.agreement import Row, segment_agreement
from alignment.shipped import shipped_folder
from alignment.xmover.configuration import ScoringConfig
from alignment.xmover.reuse import default_reuse, reuse_scorer
from alignment.xmover.scorer import XMoverScorer
from alignment.terms import Setting
from benchmarks.agreement_with_people import markdown
from benchmarks.harness import ROOT, judged, pairs, write_result

TOTAL = "gemma-given-source-total"
SHIPPED = ScoringConfig.load(shipped_folder("exports") / "wmt17/de-en").setting  # every to-English export's
BEFORE = Setting.of(**{n: w for n, w in SHIPPED.weights if n != TOTAL})  # what shipped before it
CHOSEN = SHIPPED.weight(TOTAL)  # the weight MLQE-PE dev chose and the exports keep (docs/toward_anchors.md)
TABLES = {"WMT17 test, to English": ("wmt17", pairs("wmt17")),
          "MLQE-PE test, to English": ("mlqe", pairs("mlqe", into_english=True))}


def term_values(bench: str, data) -> dict[str, np.ndarray]:
    """Per segment, every term the rows weigh, from the pair's shipped export (its sentence
    map), the outputs read as written, as the shipped setting reads them."""
    names = ("xmover", "sentence", *(n for n, _ in BEFORE.weights if n not in ("xmover", "sentence")), TOTAL)
    out = {k: np.zeros(len(data)) for k in names}
    lp = np.asarray(data.lp)
    for pair in data.pairs:
        idx = np.flatnonzero(lp == pair)
        scorer = XMoverScorer(f"{bench}/{pair}", languages=tuple(pair.split("-")), setting="none",
                              read="written", weights={"sentence": 1.0, **{
                                  n: 1.0 for n in names if n not in ("xmover", "sentence")}})
        reuse_scorer(scorer, default_reuse())
        values = scorer.score([data.src[i] for i in idx], [data.mt[i] for i in idx]).values
        for k in names:
            out[k][idx] = values[k]
        print(f"  {bench} {pair}: {len(idx)} segments", flush=True)
    return out


def rows_for(values: dict[str, np.ndarray], data) -> list[Row]:
    """The setting shipped before first (every Δ is against it), the chosen total beside it,
    the total alone, and what the total adds beyond the mean: the output's length in Gemma's
    tokens (the total over the mean), alone; then the data's own baselines."""
    def row(label: str, setting: Setting) -> Row:
        return Row(label, setting.combine(values), setting.flags() + " --read written")

    mean, total = values["gemma-given-source"], values[TOTAL]
    tokens = np.divide(total, mean, out=np.zeros_like(total), where=mean != 0)
    with_total = Setting.of(**dict(BEFORE.weights), **{TOTAL: CHOSEN})
    rows = [row(f"shipped before: {BEFORE.label('the export')}", BEFORE),
            row(f"⊕ {CHOSEN:g} Gemma given the source (total), chosen on dev", with_total),
            row("Gemma given the source (total) alone", Setting.of(xmover=0, sentence=0, **{TOTAL: 1})),
            row("Gemma given the source (mean) alone",
                Setting.of(xmover=0, sentence=0, **{"gemma-given-source": 1})),
            Row("fewer output tokens alone (−log Gemma tokens)", -np.log1p(tokens),
                "the total over the mean")]
    labels = {"model_score": "MT system's log-probability (glass-box)",
              "sentbleu": "SentBLEU (reads the reference)"}
    return rows + [Row(labels.get(k, k), np.asarray(v), f"the data's '{k}' column")
                   for k, v in data.baselines.items()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", nargs="*", choices=list(TABLES), default=list(TABLES))
    ap.add_argument("--data", default=str(ROOT / "data"), help="the folder `crossalign data` wrote")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "total_log_probability"))
    args = ap.parse_args()
    result, tables = {}, []
    for name in args.tables:
        bench, which = TABLES[name]
        data = judged(bench, args.data, "test", which)
        rows = rows_for(term_values(bench, data), data)
        metrics = segment_agreement(data, rows)
        result[name] = {"pairs": data.pairs, "rows": [r.label for r in rows], "metrics": metrics,
                        "signatures": {r.label: r.signature for r in rows}}
        tables.append(f"### {name}\n\n" + markdown(metrics, [r.label for r in rows], data.pairs, []))
        print(tables[-1], flush=True)
    write_result(args.out, result, "\n\n".join(tables))


if __name__ == "__main__":
    main()
