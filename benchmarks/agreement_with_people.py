"""Agreement with people, the whole table: for every WMT17 and MLQE-PE to-English pair, the
unmapped encoder, ``center > clp`` and ``clp_flow`` trained on the pair's own parallel text
(news for WMT17, post-edited Wikipedia for MLQE-PE; no judged sentence in it), and the
unsupervised ``mining`` route on two disjoint monolingual halves of that text and on the
same lines with the English shuffled (comparable text: translations there, pairing withheld),
and (opt-in) Joint-Align ⊕ NORM over the seven WMT17 languages at once — each with and without the LM
term, whose weight is chosen on MLQE-PE dev, and (WMT17, where several systems translated
every source) with the consensus term, standardised and added with equal weight — against
the data's own columns and the published anchors. Every stage is one ``crossalign`` command
(or library call) run only when its result is not there yet, timed.

    crossalign data wmt17 --from CLONE_OF_ACL20 && crossalign data mlqe --from CLONE_OF_MLQE_PE
    python benchmarks/agreement_with_people.py --skip-mlqe mining --joint-align 500   # docs' table (70 min, 2 CPUs)
    python benchmarks/agreement_with_people.py --benchmarks wmt17 --pairs de-en
    python benchmarks/agreement_with_people.py --report-only         # the tables from what is there

Runs land in checkpoints/judged/ (``--root``); segment scores in ``scores-BENCH-SPLIT.npz``;
the tables in benchmarks/results/judged.md and .json."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from alignment.judgments import get_benchmark
from alignment.judgments.agreement import Row, format_agreement, segment_agreement
from alignment.judgments.benchmark_rows import segment_consensus
from alignment.judgments.dev_choice import best_weight, choose_on_dev
from alignment.terms import TERMS, Setting, standardise
from benchmarks.harness import pairs as benchmark_pairs
from benchmarks.harness import run_once as run

ENCODER = "multilingual-e5-small-q4"
LAYER = 8  # the 2022 formula's default layer: the metric as users get it
PAIRS = {b: benchmark_pairs(b, into_english=True) for b in ("wmt17", "mlqe")}
MAPS = {"center > clp": "clp", "clp_flow": "flow", "mining": "mining",
        "mining (comparable)": "mining-comparable"}
LM = "smollm2-135m"
COEFS, SENTENCE_COEFS = TERMS["lm"].grid, TERMS["sentence"].grid  # the weights tried on dev


def train_maps(root: Path, data: Path, bench: str, pair: str, sentences: int,
               skip: tuple[str, ...] = (), flow_epochs: int = 4) -> dict[str, float]:
    """The pair's three maps (exports under root/BENCH-PAIR-KIND/export); seconds each."""
    lang = pair.split("-")[0]
    src, tgt = data / bench / pair / f"train.{lang}", data / bench / pair / "train.en"
    common = ["--encoder", ENCODER, "--layer", str(LAYER), "--threads", "2"]
    seconds = {}
    for method, kind in MAPS.items():
        if method in skip:
            continue
        out = root / f"{bench}-{pair}-{kind}"
        if kind.startswith("mining"):
            mono = root / f"{bench}-{pair}-{'mono' if kind == 'mining' else 'comparable'}"
            mono.mkdir(parents=True, exist_ok=True)
            a = src.read_text(encoding="utf-8").splitlines()
            b = tgt.read_text(encoding="utf-8").splitlines()
            if kind == "mining":  # two disjoint halves: no sentence has its translation
                half = min(sentences, len(a) // 2)
                a, b = a[:half], b[half:2 * half]
            else:  # the same lines, the English shuffled: translations there, pairing withheld
                a, b = a[:sentences], b[:sentences]
                b = [b[i] for i in np.random.default_rng(0).permutation(len(b))]
            (mono / f"mono.{lang}").write_text("\n".join(a) + "\n", encoding="utf-8")
            (mono / "mono.en").write_text("\n".join(b) + "\n", encoding="utf-8")
            cmd = ["crossalign", "train", "--method", "mining", "--src", str(mono / f"mono.{lang}"),
                   "--tgt", str(mono / "mono.en"), "--out", str(out), *common]
        else:
            cmd = ["crossalign", "train", "--method", method, "--src", str(src), "--tgt", str(tgt),
                   "--max-sentences", str(sentences), "--out", str(out), *common]
            if method == "clp_flow":
                cmd += ["--epochs", str(flow_epochs)]
        if not (root / f"{out.name}.wall.json").is_file() and out.exists():
            cmd.append("--overwrite")  # an interrupted earlier attempt: its own files only
        seconds[method] = run(cmd, out)
    return seconds


def score(root: Path, data: Path, bench: str, split: str, pairs: list[str]) -> Path:
    """Every row's XMoverScore and the LM's score of every segment, kept in one file; a row
    whose exports appear later (Joint-Align) is scored and added on the next call."""
    from alignment.judgments.benchmark_rows import score_benchmark
    from alignment.judgments.row_spec import EncoderRow

    target = root / f"scores-{bench}-{split}.npz"
    have = dict(np.load(target)) if target.is_file() else {}
    record = json.loads(target.with_suffix(".json").read_text()) if target.is_file() else {
        "seconds": {}, "signatures": {}}
    if not isinstance(record["seconds"], dict):
        record["seconds"] = {"first rows": record["seconds"]}
    benchmark = get_benchmark(bench)
    segs = benchmark.load(data / bench, split, pairs)
    kinds = {**MAPS, "Joint-Align ⊕ NORM": "joint"}
    rows = [EncoderRow("unmapped", {"*": ENCODER})] + [
        EncoderRow(method, {p: str(root / f"{bench}-{p}-{kind}" / "export") for p in pairs})
        for method, kind in kinds.items()  # a map trained for every pair (--skip leaves one out)
        if all((root / f"{bench}-{p}-{kind}" / "export" / "remap.json").is_file() for p in pairs)]
    rows = [r for r in rows if f"row:{r.label}" not in have]
    if "row:sentence alone" not in have:  # the encoder's own sentence embeddings (its last layer)
        from alignment.encoding.encoder import load_encoder
        from alignment.xmover.sentence_vectors import SentenceSimilarity

        start = time.perf_counter()
        term = SentenceSimilarity(load_encoder(ENCODER, layer=LAYER))
        have["row:sentence alone"] = term.score(segs.src, segs.mt)
        record["signatures"]["sentence alone"] = f"sentence:{term.describe()}"
        record["seconds"]["sentence alone"] = time.perf_counter() - start
    if not rows:
        np.savez(target, **{**have, "human": segs.human, "lp": np.asarray(segs.lp)})
        target.with_suffix(".json").write_text(json.dumps(record, indent=2))
        return target
    start = time.perf_counter()
    result = score_benchmark(benchmark, segs, rows, {"layer": LAYER},
                             None if "row:LM alone" in have else LM, 0.0, with_baselines=False,
                             resamples=10)
    for r in result.rows:
        if "⊕ LM" not in r.label:
            have[f"row:{r.label}"] = r.scores
            record["signatures"][r.label] = r.signature
    record["seconds"][" + ".join(r.label for r in rows)] = time.perf_counter() - start
    np.savez(target, **{**have, "human": segs.human, "lp": np.asarray(segs.lp)})
    target.with_suffix(".json").write_text(json.dumps(record, indent=2))
    return target


def joint_align(root: Path, data: Path, sentences: int) -> float:
    """Joint-Align ⊕ NORM over the seven WMT17 languages at once (recipes/wmt17-encoder), then
    the one encoder exported for each pair; seconds of the fine-tuning."""
    recipe = Path(__file__).resolve().parents[1] / "recipes" / "wmt17-encoder" / "joint-align.yaml"
    run_dir = root / "wmt17-joint-align"
    corpora = ["--data.init_args.corpora", json.dumps([
        {"src": str(data / "wmt17" / p / f"train.{p[:2]}"), "tgt": str(data / "wmt17" / p / "train.en"),
         "src_lang": p[:2]} for p in PAIRS["wmt17"]])]
    seconds = run(["crossalign", "fit", "--config", str(recipe), *corpora,
                   "--data.init_args.max_sentences", str(sentences + 200),
                   "--trainer.default_root_dir", str(run_dir)], run_dir)
    for pair in PAIRS["wmt17"]:
        out = root / f"wmt17-{pair}-joint"
        run(["crossalign", "export", "--export", str(run_dir / "export"), "--src-lang", pair[:2],
             "--out", str(out / "export")], out)
    return seconds


def load_scores(path: Path, bench: str, split: str, data: Path):
    z = np.load(path)
    segs = get_benchmark(bench).load(data / bench, split, list(dict.fromkeys(z["lp"].tolist())))
    baselines = set(get_benchmark(bench).baselines.values())  # the data's own: added by table()
    rows = {k[4:]: z[k] for k in z.files if k.startswith("row:") and k[4:] not in baselines}
    return segs, rows


TERMS = ("LM alone", "sentence alone")


def rows_with_lm(rows: dict[str, np.ndarray], coef: dict[str, float],
                 sentence: dict[str, float]) -> list[tuple[str, np.ndarray]]:
    """Each map's row, then each with its LM weight (the ⊕ LM rows; a map not run on MLQE-PE
    dev takes the unmapped row's weight), the LM alone, the unmapped and ``clp_flow`` rows ⊕
    LM ⊕ the sentence-level term (weights chosen on MLQE-PE dev), and that term alone."""
    lm = rows["LM alone"]
    base = [k for k in rows if not k.endswith("⊕ LM") and k not in TERMS]
    weight = {k: coef.get(k, coef["unmapped"]) for k in base}
    listed = [(k, rows[k]) for k in base] + [
        (f"{k} ⊕ LM", Setting.of(lm=weight[k]).combine({"xmover": rows[k], "lm": lm}))
        for k in base]
    listed.append(("LM alone", lm))
    if "sentence alone" in rows:
        listed += [(f"{k} ⊕ LM ⊕ sentence", combined(rows, k, weight[k], sentence[k]))
                   for k in ("unmapped", "clp_flow") if k in rows and k in sentence]
        listed.append(("sentence alone", rows["sentence alone"]))
    return listed


def choose_coefficients(root: Path, data: Path) -> dict[str, dict[str, float]]:
    """Per row, the LM weight with the best average Pearson on MLQE-PE dev (never a test set),
    then the sentence-level term's weight given it (``alignment.judgments.selection``)."""
    segs, rows = load_scores(root / "scores-mlqe-dev.npz", "mlqe", "dev", data)
    chosen, grid, sentence = {}, {}, {}
    for label in [k for k in rows if k != "LM alone" and "⊕" not in k and k in
                  ["unmapped", *MAPS]]:
        chosen[label], grid[label] = best_weight(segs, rows[label], rows["LM alone"], COEFS)
        with_lm = Setting.of(lm=chosen[label]).combine({"xmover": rows[label],
                                                        "lm": rows["LM alone"]})
        sentence[label], _ = best_weight(segs, with_lm, rows["sentence alone"], SENTENCE_COEFS)
    return {"chosen": chosen, "grid": grid, "sentence": sentence}


def combined(rows: dict[str, np.ndarray], label: str, lm: float, sentence: float) -> np.ndarray:
    """A row ⊕ lm × the LM term ⊕ sentence × the sentence-level term."""
    return Setting.of(lm=lm, sentence=sentence).combine(
        {"xmover": rows[label], "lm": rows["LM alone"], "sentence": rows["sentence alone"]})


def choose_per_pair(root: Path, data: Path) -> dict[str, tuple[str, float, float]]:
    """Per MLQE-PE pair, the map, LM weight and sentence-term weight with the best Pearson on
    that pair's dev set (``crossalign choose``'s rule, for a new pair with dev judgments)."""
    segs, rows = load_scores(root / "scores-mlqe-dev.npz", "mlqe", "dev", data)
    maps = {k: v for k, v in rows.items() if k in ["unmapped", *MAPS]}
    chosen = {}
    for pair in segs.pairs:
        mask = np.asarray(segs.lp) == pair
        pick = choose_on_dev(segs.of_pair(pair), {k: v[mask] for k, v in maps.items()},
                             rows["LM alone"][mask], rows["sentence alone"][mask], tuple(COEFS),
                             tuple(SENTENCE_COEFS)).chosen
        chosen[pair] = (pick.row, pick.lm, pick.sentence)
    return chosen


PER_PAIR = "map, LM and sentence weights chosen per pair on dev"


def table(root: Path, data: Path, bench: str, split: str, coef: dict[str, dict],
          resamples: int, per_pair: dict[str, tuple[str, float, float]] | None = None
          ) -> tuple[str, dict]:
    segs, rows = load_scores(root / f"scores-{bench}-{split}.npz", bench, split, data)
    benchmark = get_benchmark(bench)
    listed = [Row(k, v, "") for k, v in rows_with_lm(rows, coef["chosen"], coef["sentence"])]
    if per_pair and all(p in per_pair for p in segs.pairs):
        lp, picked = np.asarray(segs.lp), np.zeros(len(segs))
        for pair, (label, c, w) in per_pair.items():
            picked[lp == pair] = combined(rows, label, c, w)[lp == pair]
        listed.append(Row(PER_PAIR, picked, ""))
    if benchmark.systems is not None:  # several systems translated each source: the consensus
        agreement = segment_consensus(benchmark, segs, data / bench)
        lp = np.asarray(segs.lp)
        with_it = Setting.of(consensus=1.0)
        listed += [Row(with_it.label(r.label), with_it.combine(
            {"xmover": r.scores, "consensus": agreement}, lp), "")
                   for r in listed if r.label == "unmapped" or r.label.endswith(("⊕ LM", "⊕ sentence"))]
        listed.append(Row("consensus alone", standardise(agreement, lp), ""))
    listed += [Row(label, segs.baselines[col], "") for col, label in benchmark.baselines.items()]
    metrics = segment_agreement(segs, listed, resamples)
    anchors = [(a.label, a.values) for a in benchmark.anchors]
    labels = [r.label for r in listed]
    text = format_agreement(metrics, labels, segs.pairs, f"{bench} {split}: Pearson with human "
                            f"scores [95% bootstrap CI, {resamples} resamples]", anchors)
    md = markdown(metrics, labels, segs.pairs, anchors)
    summed = [r for r in listed if r.label.endswith("⊕ consensus")]
    if summed:  # what the metric adds to the consensus term alone
        alone = [r for r in listed if r.label == "consensus alone"]
        against = segment_agreement(segs, alone + summed, resamples)
        md += "\n\n" + delta_markdown(against, [r.label for r in alone + summed], segs.pairs)
        metrics.update({f"vs consensus alone/{k}": v for k, v in against.items()})
    return text, metrics, md


def corr(v: float) -> str:
    """A correlation as the docs print it: ``.312``, ``−.015``."""
    return f"{v:.3f}".replace("0.", ".", 1) if v >= 0 else f"{v:.3f}".replace("-0.", "−.", 1)


def markdown(metrics: dict, rows: list[str], pairs: list[str], anchors: list[tuple[str, dict]]) -> str:
    """The table as docs print it: Pearson [95% CI] per pair and on average, then Δ against the
    first row (paired bootstrap; * Williams one-sided p < .05 and the interval above 0)."""
    cols = [*pairs, "avg"]
    lines = ["| row | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for r in rows:
        lines.append(f"| {r} | " + " | ".join(
            f"{corr(metrics[f'{r}/{c}/pearson'])} [{corr(metrics[f'{r}/{c}/pearson_lo'])}, "
            f"{corr(metrics[f'{r}/{c}/pearson_hi'])}]" for c in cols) + " |")
    for label, values in anchors:
        lines.append(f"| *{label}* | " + " | ".join(corr(values[c]) if c in values else "–" for c in cols) + " |")
    return "\n".join(lines + ["", delta_markdown(metrics, rows, pairs)])


def delta_markdown(metrics: dict, rows: list[str], pairs: list[str]) -> str:
    """Every row but the first against the first: Δ Pearson [paired bootstrap interval], * where
    Williams' one-sided test and the interval both say better."""
    cols = [*pairs, "avg"]
    lines = [f"Δ against {rows[0]}:", "", "| row | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for r in rows[1:]:
        cells = []
        for c in cols:
            d, lo, hi = (metrics[f"{r}/{c}/{k}"] for k in ("diff", "diff_lo", "diff_hi"))
            star = "*" if lo > 0 and metrics.get(f"{r}/{c}/williams_p", 0.0) < 0.05 else ""
            sign = (lambda v: ("+" if v >= 0 else "") + corr(v))
            cells.append(f"{sign(d)} [{sign(lo)}, {sign(hi)}]{star}")
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data", help="folder holding wmt17/ and mlqe/ (crossalign data)")
    ap.add_argument("--root", default="checkpoints/judged", help="where runs and scores land")
    ap.add_argument("--benchmarks", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    ap.add_argument("--pairs", nargs="+", help="only these pairs")
    ap.add_argument("--sentences", type=int, default=1000,
                    help="training sentence pairs a pair (the paper: 1k-2k give most of the gain)")
    ap.add_argument("--flow-epochs", type=int, default=4, help="epochs of clp_flow")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--skip", nargs="+", default=[], choices=list(MAPS), help="maps not to train")
    ap.add_argument("--skip-mlqe", nargs="+", default=[], choices=list(MAPS),
                    help="maps not to train on MLQE-PE pairs")
    ap.add_argument("--joint-align", type=int, default=0, metavar="N",
                    help="also Joint-Align ⊕ NORM on N sentence pairs a WMT17 language (0: not)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--out", default="benchmarks/results/judged")
    args = ap.parse_args()
    root, data = Path(args.root), Path(args.data)
    root.mkdir(parents=True, exist_ok=True)
    timing: dict[str, dict] = {}
    if not args.report_only:
        for bench in args.benchmarks:
            pairs = [p for p in PAIRS[bench] if not args.pairs or p in args.pairs]
            for pair in pairs:
                timing[f"{bench}/{pair}"] = train_maps(root, data, bench, pair, args.sentences,
                                                       tuple(args.skip) + tuple(
                                                           args.skip_mlqe if bench == "mlqe" else ()),
                                                       args.flow_epochs)
            if bench == "wmt17" and args.joint_align:
                timing["wmt17/joint-align"] = joint_align(root, data, args.joint_align)
            splits = ["dev", "test"] if bench == "mlqe" else ["test"]
            for split in splits:
                score(root, data, bench, split, pairs)
    coef = choose_coefficients(root, data)
    per_pair = choose_per_pair(root, data)
    out = {"lm_coefficients": coef, "per_pair_on_dev": per_pair, "timing": timing, "tables": {}}
    text = [f"LM weight chosen on MLQE-PE dev (average Pearson over {', '.join(PAIRS['mlqe'])}): "
            + ", ".join(f"{k} {v}" for k, v in coef["chosen"].items())
            + "; the sentence-level term's, given it: "
            + ", ".join(f"{k} {v}" for k, v in coef["sentence"].items()),
            "map, LM and sentence-term weights chosen per pair on its MLQE-PE dev set: "
            + ", ".join(f"{p} {label} ⊕ {c} LM ⊕ {w} sentence"
                        for p, (label, c, w) in per_pair.items())]
    tables_md: list[str] = []
    for bench, split in (("wmt17", "test"), ("mlqe", "test")):
        if (root / f"scores-{bench}-{split}.npz").is_file():
            t, m, md = table(root, data, bench, split, coef, args.bootstrap,
                             per_pair if bench == "mlqe" else None)
            text.append(t)
            tables_md.append(f"### {bench} {split}\n\n{md}")
            out["tables"][f"{bench}/{split}"] = m
    print("\n\n".join(text))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".md").write_text("\n\n".join([*text[:2], *tables_md]) + "\n", encoding="utf-8")
    Path(args.out + ".json").write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
