"""How far the one-system terms can go on WMT17 if their weights are read off WMT17 itself: an
*oracle* (it reads the test set's human scores), so it is an upper bound, never a result.

The terms are the ones docs/single_system.md measures — XMoverScore of the unmapped encoder
and of the shipped ``clp_flow`` exports, the LM, the least-squares sentence map (7,000 pairs),
optionally the fine-tuned student's term (``--student``: the ``features.npz`` of
``sentence_student.py train``) — and two surface features (the length ratio's distance from
its median, the share of MT words copied from the source). Rows, WMT17 test, 7 pairs → en:

* the shipped setting (the reference row) and SentBLEU (reads the reference);
* one setting for every pair, the best of a weight grid *on WMT17*;
* weights per pair by least squares, 10-fold cross-validated within the pair (each segment
  scored by weights fitted on the other nine folds), with and without the surface features;
* the ceiling: per pair, the multiple correlation of the human score with every term (least
  squares on all of the pair's segments, in sample; no linear combination can do better);
* with ``--mlqe-clone``, supervision from people of another domain: a ridge head on the mapped
  sentence vectors trained on MLQE-PE train's human scores (Wikipedia; 2,000 segments of each
  to-English pair), its ridge and its weight beside the shipped terms chosen on MLQE-PE dev.

    python benchmarks/archive/single_system.py --data data --sizes 7000     # the caches it reads
    python benchmarks/archive/single_system_ceiling.py --data data [--student RUN/features.npz] \
        [--mlqe-clone mlqe-pe]

Prints the table and writes benchmarks/results/single_system_ceiling.json."""
from __future__ import annotations

import argparse
import itertools
import json
import re
from pathlib import Path

import numpy as np

from alignment.judgments.agreement import Row, mean_pearson, segment_agreement
from alignment.judgments.mlqe import archive_segments as mlqe_archive
from alignment.xmover.sentence_map import fit_matrix
from benchmarks.archive.single_system import (PAIRS, TO_ENGLISH_DEV, Vectors,
                                      chunked, get_benchmark, training_text)

STUDENT_KEY = "lr2e-05:e2/wmt17/test/centred"  # the student of docs/single_system.md
SHIPPED = {"clp_flow": 1.0, "LM alone": 0.01, "sentence map": 0.5}
GRID = {"token": ["unmapped", "clp_flow"], "LM alone": [0, .005, .01, .02, .03, .05, .08],
        "sentence map": [0, .1, .2, .35, .5, .75, 1, 1.5, 2], "student": [0, .25, .5, .75, 1, 1.5, 2]}


def surface(src: list[str], mt: list[str]) -> dict[str, np.ndarray]:
    """Two reference-free surface features: minus the distance of log(len MT / len source)
    from its median over the set, and minus the share of MT words (longer than 3 letters, not
    numbers) that appear in the source (untranslated words)."""
    ratio = np.log1p([len(b) for b in mt]) - np.log1p([len(a) for a in src])
    words = (lambda s: [w for w in re.findall(r"\w+", s.lower()) if len(w) > 3 and not w.isdigit()])
    copied = [np.mean([w in set(words(a)) for w in words(b)]) if words(b) else 0.0
              for a, b in zip(src, mt)]
    return {"length ratio": -np.abs(ratio - np.median(ratio)), "copy rate": -np.asarray(copied)}


def least_squares_scores(features: np.ndarray, human: np.ndarray) -> np.ndarray:
    """The human score's least-squares fit on ``features`` (with an intercept), in sample."""
    design = np.column_stack([features, np.ones(len(human))])
    coef, *_ = np.linalg.lstsq(design, human, rcond=None)
    return design @ coef


def cross_validated_scores(features: np.ndarray, human: np.ndarray, folds: int = 10,
                           seed: int = 0) -> np.ndarray:
    """Each segment scored by least-squares weights fitted on the other folds only."""
    order = np.random.default_rng(seed).permutation(len(human))
    design = np.column_stack([features, np.ones(len(human))])
    out = np.empty(len(human))
    for k in range(folds):
        held = order[k::folds]
        train = np.setdiff1d(order, held)
        coef, *_ = np.linalg.lstsq(design[train], human[train], rcond=None)
        out[held] = design[held] @ coef
    return out


def per_pair(lp: np.ndarray, pairs: list[str], fn, features: np.ndarray, human: np.ndarray
             ) -> np.ndarray:
    """``fn(features, human)`` applied within each pair, as one score vector."""
    out = np.empty(len(human))
    for p in pairs:
        m = lp == p
        out[m] = fn(features[m], human[m])
    return out


class SentenceMaps:
    """Each pair's least-squares sentence map (7,000 pairs of its text; fitted once a pair)
    and the features of judged segments through it."""

    def __init__(self, vec: Vectors, data: Path) -> None:
        self.vec, self.data, self.fitted = vec, data, {}

    def features(self, bench: str, pair: str, src: list[str], mt: list[str]) -> np.ndarray:
        """Per segment: the product and the distance of the unit mapped source and MT vectors,
        and their cosine (the last column: the sentence map's term)."""
        if (bench, pair) not in self.fitted:
            x, y = training_text(self.data, bench, pair, 7000)
            self.fitted[(bench, pair)] = fit_matrix(chunked(self.vec, "e5", x),
                                                    chunked(self.vec, "e5", y), "least-squares")
        matrix, mx, my = self.fitted[(bench, pair)]
        unit = (lambda v: v / np.linalg.norm(v, axis=1, keepdims=True))
        u, v = unit((self.vec("e5", src) - mx) @ matrix), unit(self.vec("e5", mt) - my)
        return np.column_stack([u * v, np.abs(u - v), (u * v).sum(1)])

    def of_segments(self, bench: str, segs, pairs: list[str]) -> np.ndarray:
        """``features`` of every segment of ``pairs`` (zeros elsewhere), in ``segs``' order."""
        lp, out = np.asarray(segs.lp), None
        for pair in pairs:
            i = np.flatnonzero(lp == pair)
            f = self.features(bench, pair, [segs.src[k] for k in i], [segs.mt[k] for k in i])
            out = np.zeros((len(segs), f.shape[1])) if out is None else out
            out[i] = f
        return out


def terms(maps: SentenceMaps, root: Path, student: Path | None):
    """(segments, {term: score a segment}) on WMT17 test from single_system.py's caches."""
    segs = get_benchmark("wmt17").load(maps.data / "wmt17", "test", PAIRS["wmt17"])
    cached = dict(np.load(root / "xm-wmt17-test.npz"))
    out = {k: cached[k] for k in ("unmapped", "clp_flow", "LM alone")}
    out["sentence map"] = maps.of_segments("wmt17", segs, PAIRS["wmt17"])[:, -1]
    if student is not None:
        out["student"] = np.load(student)[STUDENT_KEY]
    out.update(surface(segs.src, segs.mt))
    return segs, out


def mlqe_split(maps: SentenceMaps, root: Path, split: str):
    """(segments, head features, the shipped setting's score) of an MLQE-PE split's to-English
    pairs: unmapped XMoverScore ⊕ 0.01 LM ⊕ 0.5 sentence map."""
    segs = get_benchmark("mlqe").load(maps.data / "mlqe", split, PAIRS["mlqe"])
    feats = maps.of_segments("mlqe", segs, TO_ENGLISH_DEV)
    cached = dict(np.load(root / f"xm-mlqe-{split}.npz"))
    return segs, feats, cached["unmapped"] + 0.01 * cached["LM alone"] + 0.5 * feats[:, -1]


def supervised_head(maps: SentenceMaps, root: Path, clone: Path, wmt17, n: int = 2000
                    ) -> tuple[np.ndarray, float, float, dict[str, float]]:
    """(the head's WMT17 scores, the ridge and the weight beside the shipped terms chosen on
    MLQE-PE dev, MLQE-PE test's average Pearson of the head and of the shipped setting): ridge
    regression of MLQE-PE train's z-scored human scores on ``SentenceMaps.features``."""
    feats, target = [], []
    for pair in TO_ENGLISH_DEV:
        train = mlqe_archive(clone / "data" / "direct-assessments" / "train" / f"{pair}-train.tar.gz",
                             pair).subset(range(n))
        feats.append(maps.features("mlqe", pair, train.src, train.mt))
        target.append((train.human - train.human.mean()) / train.human.std())
    a, b = np.concatenate(feats), np.concatenate(target)
    mu, sd = a.mean(0), a.std(0) + 1e-9
    z = (a - mu) / sd
    gram, rhs = z.T @ z, z.T @ b
    ridge_fit = (lambda r: np.linalg.solve(gram + r * np.eye(len(gram)), rhs))
    dev, dev_f, shipped_dev = mlqe_split(maps, root, "dev")
    score = (lambda w, f: ((f - mu) / sd) @ w)
    ridges = {r: mean_pearson(dev, score(ridge_fit(r), dev_f), TO_ENGLISH_DEV)
              for r in (1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6)}
    ridge = max(ridges, key=ridges.get)
    w = ridge_fit(ridge)
    head_dev = score(w, dev_f)
    weights = {c: mean_pearson(dev, shipped_dev + c * head_dev, TO_ENGLISH_DEV)
               for c in (0, .01, .02, .05, .1, .2, .5, 1)}
    weight = max(weights, key=weights.get)
    test, mlqe_f, shipped_test = mlqe_split(maps, root, "test")
    own = {"head": mean_pearson(test, score(w, mlqe_f), TO_ENGLISH_DEV),
           "shipped": mean_pearson(test, shipped_test, TO_ENGLISH_DEV)}
    return score(w, maps.of_segments("wmt17", wmt17, PAIRS["wmt17"])), ridge, weight, own


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data")
    ap.add_argument("--root", default="checkpoints/single_system")
    ap.add_argument("--student", type=Path, help="sentence_student.py's features.npz")
    ap.add_argument("--mlqe-clone", type=Path, help="the MLQE-PE clone: adds the supervised head")
    ap.add_argument("--out", default="benchmarks/results/single_system_ceiling.json")
    args = ap.parse_args()
    maps = SentenceMaps(Vectors(Path(args.root)), Path(args.data))
    segs, t = terms(maps, Path(args.root), args.student)
    pairs, lp, h = PAIRS["wmt17"], np.asarray(segs.lp), segs.human
    rows = [Row("shipped: clp_flow ⊕ 0.01 LM ⊕ 0.5 sentence map",
                sum(w * t[k] for k, w in SHIPPED.items()), "")]
    grid_terms = [k for k in ("LM alone", "sentence map", "student") if k in t]
    best, best_r = None, -1.0
    for token in GRID["token"]:
        for ws in itertools.product(*(GRID[k] for k in grid_terms)):
            s = t[token] + sum(w * t[k] for k, w in zip(grid_terms, ws))
            r = mean_pearson(segs, s, pairs)
            if r > best_r:
                best, best_r = (token, *ws), r
    label = f"oracle, one setting: {best[0]} ⊕ " + " ⊕ ".join(
        f"{w:g} {k}" for k, w in zip(grid_terms, best[1:]))
    rows.append(Row(label, t[best[0]] + sum(w * t[k] for k, w in zip(grid_terms, best[1:])), ""))
    crossalign = np.column_stack([t[k] for k in ("unmapped", "clp_flow", *grid_terms)])
    every = np.column_stack([crossalign, t["length ratio"], t["copy rate"]])
    rows.append(Row("oracle, weights per pair (10-fold cross-validated), crossalign's terms",
                    per_pair(lp, pairs, cross_validated_scores, crossalign, h), ""))
    rows.append(Row("oracle, weights per pair (10-fold cross-validated), + length ratio and copy rate",
                    per_pair(lp, pairs, cross_validated_scores, every, h), ""))
    if args.mlqe_clone is not None:
        head, ridge, weight, own = supervised_head(maps, Path(args.root), args.mlqe_clone, segs)
        print(f"the head in its own domain, MLQE-PE test (5 pairs → en): {own['head']:.3f} "
              f"(the shipped setting {own['shipped']:.3f})")
        rows.append(Row(f"head on MLQE-PE train's human scores alone (ridge {ridge:g})", head, ""))
        rows.append(Row(f"shipped ⊕ {weight:g} × that head (weight chosen on MLQE-PE dev)",
                        rows[0].scores + weight * head, ""))
    rows.append(Row("SentBLEU (reads the reference)", segs.baselines["sentbleu"], ""))
    ceilings = {"ceiling: multiple R per pair, crossalign's terms":
                per_pair(lp, pairs, least_squares_scores, crossalign, h),
                "ceiling: multiple R per pair, + length ratio and copy rate":
                per_pair(lp, pairs, least_squares_scores, every, h)}
    stats = segment_agreement(segs, rows)
    print(f"{'WMT17 test, one system (terms: ' + ', '.join(['unmapped', 'clp_flow', *grid_terms]) + ')':78s} "
          + " ".join(f"{p:>5s}" for p in pairs) + "   avg [95% CI]  Δ against shipped")
    result = {"terms": ["unmapped", "clp_flow", *grid_terms], "rows": {},
              "head_on_mlqe_test": own if args.mlqe_clone is not None else None}
    for row in rows:
        r = [stats[f"{row.label}/{p}/pearson"] for p in pairs]
        lo, hi = stats[f"{row.label}/avg/pearson_lo"], stats[f"{row.label}/avg/pearson_hi"]
        result["rows"][row.label] = {**dict(zip(pairs, r)), "avg": float(np.mean(r)), "ci": [lo, hi]}
        delta = ""
        if row is not rows[0]:
            d = [stats[f"{row.label}/avg/diff{k}"] for k in ("", "_lo", "_hi")]
            result["rows"][row.label]["delta_vs_shipped"] = d
            delta = f"  Δ {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]"
        print(f"{row.label:84s} " + " ".join(f"{x:.3f}" for x in r)
              + f"  {np.mean(r):.3f} [{lo:.3f}, {hi:.3f}]" + delta)
    for label, s in ceilings.items():
        r = [float(np.corrcoef(s[lp == p], h[lp == p])[0, 1]) for p in pairs]
        result["rows"][label] = {**dict(zip(pairs, r)), "avg": float(np.mean(r))}
        print(f"{label:84s} " + " ".join(f"{x:.3f}" for x in r) + f"  {np.mean(r):.3f} (in sample)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(args.out).with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1))
    tmp.rename(args.out)


if __name__ == "__main__":
    main()
