"""``crossalign unsupervised``: aligning Spanish to English with no parallel data on the unpaired
Bible test bed — VecMap-style, MUSE-style (± Procrustes refinement), GAN-Real-NVP (± bootstrapping
with each constraint), pseudo-parallel mining — against ``center`` (needs no pairs) and the
supervised references, evaluated on the same held-out verses as everything else. No label is
used in any unsupervised route: every choice (epoch, round, mining iteration) is made by the
semantic criterion on unpaired validation pools."""
from __future__ import annotations

import copy
import tempfile
import time
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from alignment.evaluation.criteria import semantic_criterion
from alignment.errors import InputError
from alignment.evaluation.retrieval import (apply_mapping, evaluate_mapping, retrieval_hits)
from alignment.mappings import BASELINE, Mapping, parse_method
from alignment.unsupervised.mining import mine_pairs
from alignment.data.pipeline import word_alignment
from alignment.export.signature import signature
from alignment.data.vectors import aligned_pairs

from ..bootstrap import BootstrapConfig, bootstrap
from ..callbacks import KeepBest
from ..datamodule import PairedVectorDataModule
from ..fitting import fit_arrays, fit_method
from ..reporting import report
from .shared import ReferenceConfig, fit_supervised
from .testbed import UnpairedBible, prepare_bible, protocol_name, unpaired_bible
from .unsupervised_report import compare_routes, format_unsupervised

CONSTRAINT_ROUTES = {"gan_realnvp + boot (cross-corr)": "cross_correlation",
                     "gan_realnvp + boot (graph)": "graph",
                     "gan_realnvp + boot (procrustes)": "procrustes"}
ROUTES = ["center", "vecmap", "vecmap (identity start)", "muse", "muse + refinement",
          "gan_realnvp", *CONSTRAINT_ROUTES, "mining > center > clp"]
GAN_SPEC = "center > gan_realnvp:critic_hidden=512,lr=0.0003,critic_lr=0.0003"


@dataclass
class UnsupervisedConfig(ReferenceConfig):
    """The unpaired test bed, each route's budget, and the supervised references."""

    out_dir: str = field(default="checkpoints/unsupervised", metadata={"flag": "out"})
    protocol: str = field(default="disjoint", metadata={"help": "disjoint (es and en from "
                          "different verses: no translation anywhere), comparable (the same "
                          "verses, each language sampled on its own; 0.3's 'shuffled') or "
                          "pairs-permuted (the paper's: the aligned word pairs, English "
                          "permuted)"})
    routes: list[str] = field(default_factory=lambda: list(ROUTES),
                              metadata={"help": "unsupervised routes to run"})
    pool_tokens: int = field(default=20000, metadata={"help": "training tokens per language"})
    per_type: int = field(default=20, metadata={"help": "at most this many tokens per word type"})
    vecmap_types: int = field(default=4000, metadata={"help": "most frequent types for VecMap"})
    muse_epochs: int = 5
    gan_epochs: int = 16
    gan_seeds: list[int] = field(default_factory=lambda: [0, 1], metadata={
        "help": "GAN-Real-NVP seeds: the first is bootstrapped, the others are reported alone "
                "(seed-to-seed spread, collapses)"})
    rounds: int = field(default=3, metadata={"help": "bootstrapping rounds (paper: 3 on real data)"})
    refinement_rounds: int = field(default=5, metadata={"help": "MUSE's Procrustes refinement rounds"})
    mining_rounds: int = field(default=2, metadata={"help": "mine → align → fit iterations"})
    mining_threshold: float = field(default=1.05, metadata={"help": "ratio-margin threshold"})
    bootstrap_samples: int = field(default=1000, metadata={"flag": "bootstrap",
                                   "help": "paired bootstrap resamples for the intervals"})


@dataclass
class Pools:
    """The arrays every route sees: sampled training pools and unpaired validation pools."""

    x: np.ndarray
    y: np.ndarray
    val_x: np.ndarray
    val_y: np.ndarray

    def datamodule(self, batch_size: int, seed: int) -> PairedVectorDataModule:
        """Rows in independent orders (not pairs), for the unsupervised fitters."""
        return PairedVectorDataModule.from_arrays(self.x, self.y, val=(self.val_x, self.val_y),
                                                  batch_size=batch_size, shuffle=True, seed=seed)


def make_pools(u: UnpairedBible, cfg: UnsupervisedConfig) -> Pools:
    """``pool_tokens`` rows a language (``val_tokens`` for validation). ``pairs-permuted``:
    a seeded sample of the aligned word pairs, the English rows permuted; otherwise each
    language's tokens sampled on its own, at most ``per_type`` per word type."""
    if u.protocol == "pairs-permuted":
        return permuted_pairs(u.bed, cfg.pool_tokens, cfg.val_tokens, cfg.seed)
    x = u.src.vectors[u.src.capped_sample(cfg.pool_tokens, cfg.per_type, cfg.seed)]
    y = u.tgt.vectors[u.tgt.capped_sample(cfg.pool_tokens, cfg.per_type, cfg.seed + 1)]
    vx = u.val_src.vectors[u.val_src.capped_sample(cfg.val_tokens, cfg.per_type, cfg.seed + 2)]
    vy = u.val_tgt.vectors[u.val_tgt.capped_sample(cfg.val_tokens, cfg.per_type, cfg.seed + 3)]
    n, m = min(len(x), len(y)), min(len(vx), len(vy))
    return Pools(x[:n], y[:n], vx[:m], vy[:m])


def permuted_pairs(bed, pool_tokens: int, val_tokens: int, seed: int) -> Pools:
    """Zhao & Eger 2022's unpaired protocol: aligned word pairs (training verses; validation
    from the dev verses), their target rows permuted — every row's translation is in the
    other pool, no row is paired with it."""
    rng = np.random.default_rng(seed)

    def unpaired(x: np.ndarray, y: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        pick = np.sort(rng.choice(len(x), min(n, len(x)), replace=False))
        return x[pick], y[pick][rng.permutation(len(pick))]

    x, y = unpaired(bed.x, bed.y, pool_tokens)
    vx, vy, _ = aligned_pairs(bed.dev.src, bed.dev.tgt, bed.dev.alignments)
    vx, vy = unpaired(vx, vy, val_tokens)
    return Pools(x, y, vx, vy)


def semantic_on(pools: Pools, mapping: Mapping | None) -> float:
    """The label-free criterion on the unpaired validation pools."""
    return semantic_criterion(torch.from_numpy(apply_mapping(mapping, pools.val_x, "src")),
                              torch.from_numpy(apply_mapping(mapping, pools.val_y, "tgt")))


def fit_selected(method: str, pools: Pools, epochs: int, cfg: UnsupervisedConfig,
                 batch_size: int = 256, seed: int | None = None) -> tuple[Mapping, Mapping, int]:
    """An adversarial fit; returns the epoch the semantic criterion picked, the last epoch
    (the fixed-budget comparison) and the picked epoch's index."""
    torch.manual_seed(cfg.seed if seed is None else seed)
    keep = KeepBest("semantic")
    mapping = fit_method(method, pools.datamodule(batch_size, cfg.seed), epochs, callbacks=[keep])
    last = copy.deepcopy(mapping)
    last.load_state_dict(keep.last_state)
    return mapping, last, int(keep.best_epoch or 0)


def vecmap_route(u: UnpairedBible, pools: Pools, cfg: UnsupervisedConfig, init: str) -> Mapping:
    """Self-learning on per-type centroids of the most frequent types (static vectors for a
    static method), centred with the token pools' means."""
    from alignment.mappings import LinearMap, StagedMapping, fit_composition
    from alignment.mappings.moments import PairMoments
    from alignment.unsupervised.vecmap import SelfLearning, self_learning

    pre = fit_composition(PairMoments.of(torch.from_numpy(pools.x), torch.from_numpy(pools.y)),
                          "center")
    _, cx = u.src.centroids(top=cfg.vecmap_types, min_count=3)
    _, cy = u.tgt.centroids(top=cfg.vecmap_types, min_count=3)
    with torch.no_grad():
        px, py = pre(torch.from_numpy(cx)), pre.map_target(torch.from_numpy(cy))
    w = self_learning(px, py, SelfLearning(init=init, seed=cfg.seed))
    return StagedMapping.of(pre, LinearMap(pools.x.shape[1]).set_weight(w))


def mining_route(u: UnpairedBible, pools: Pools, cfg: UnsupervisedConfig
                 ) -> tuple[Mapping, dict[str, float]]:
    """Mine sentence pairs by ratio margin on centred sentence means, align the mined pairs'
    words with eflomal, fit ``center > clp``; re-mine with the improved map. The iteration
    the semantic criterion prefers is kept."""
    tr = u.bed.train_data
    src, tgt = tr.src.subset(u.src_verses), tr.tgt.subset(u.tgt_verses)
    src_tokens = [tr.src_tokens[i] for i in u.src_verses]
    tgt_tokens = [tr.tgt_tokens[i] for i in u.tgt_verses]
    mapping: Mapping | None = None
    best: tuple[float, Mapping | None, dict] = (-float("inf"), None, {})
    for it in range(1, cfg.mining_rounds + 1):
        sv = torch.from_numpy(src.sentence_means(apply_mapping(mapping, src.vectors, "src")))
        tv = torch.from_numpy(tgt.sentence_means(apply_mapping(mapping, tgt.vectors, "tgt")))
        mined = mine_pairs(sv, tv, threshold=cfg.mining_threshold)
        if len(mined) < 10:
            break
        s_idx, t_idx = mined.src.tolist(), mined.tgt.tolist()
        links = word_alignment([src_tokens[i] for i in s_idx], [tgt_tokens[j] for j in t_idx])
        xs, ys, _ = aligned_pairs(src.subset(s_idx), tgt.subset(t_idx), links)
        mapping = fit_arrays(xs, ys, BASELINE)
        same = float(np.mean([u.src_verses[a] == u.tgt_verses[b] for a, b in zip(s_idx, t_idx)]))
        info = {"mined_sentences": float(len(mined)), "mined_word_pairs": float(len(xs)),
                "mined_true_share": same, "mining_iteration": float(it)}
        score = semantic_on(pools, mapping)
        print(f"  mining iteration {it}: {len(mined)} sentence pairs ({100 * same:.1f}% true "
              f"translations), {len(xs)} word pairs, semantic {score:.4f}", flush=True)
        if score > best[0]:
            best = (score, mapping, info)
    if best[1] is None:
        raise InputError("mining found fewer than 10 sentence pairs: lower mining_threshold",
                         parameter="mining_threshold")
    return best[1], best[2]


def run_unsupervised(cfg: UnsupervisedConfig) -> dict[str, dict[str, float]]:
    cfg = replace(cfg, protocol=protocol_name(cfg.protocol))  # before anything is encoded
    unknown = [r for r in cfg.routes if r not in ROUTES]
    if unknown:
        raise InputError(f"unknown route '{unknown[0]}' (known: {', '.join(ROUTES)})",
                         parameter="routes")
    supervised = [parse_method(m, "supervised") for m in cfg.supervised]
    start = time.time()
    bed = prepare_bible(cfg, with_dev=True)
    u = unpaired_bible(bed, cfg.protocol)
    pools = make_pools(u, cfg)
    rows: dict[str, dict[str, float]] = {}
    hits: dict[str, np.ndarray] = {}
    mappings: dict[str, Mapping | None] = {}

    def record(name: str, mapping: Mapping | None, seconds: float, **extra: float) -> None:
        result = evaluate_mapping(bed.test, mapping, bed.lexicon)
        result.update(seconds=seconds, semantic=semantic_on(pools, mapping), **extra)
        rows[name], hits[name], mappings[name] = result, retrieval_hits(bed.test, mapping), mapping
        print(f"{name}: es→en {100 * result['retrieval_cosine_src2tgt']:.1f}, semantic "
              f"{result['semantic']:.4f}, {seconds:.0f} s", flush=True)

    record("unmapped", None, 0.0)
    for spec in supervised:  # paired data: the references the unsupervised routes aim at
        t0 = time.time()
        record(f"supervised: {spec.label}", fit_supervised(spec, bed, cfg), time.time() - t0)
    bcfg = BootstrapConfig(rounds=cfg.rounds, seed=cfg.seed)
    for route in cfg.routes:
        t0 = time.time()
        if route == "center":
            record(route, fit_arrays(pools.x, pools.y, "center"), time.time() - t0)
        elif route.startswith("vecmap"):
            init = "identity" if "identity" in route else "similarity"
            record(route, vecmap_route(u, pools, cfg, init), time.time() - t0)
        elif route == "muse":
            sel, last, epoch = fit_selected("center > muse", pools, cfg.muse_epochs, cfg, 128)
            mappings["muse (fit)"] = sel
            record(route, sel, time.time() - t0, epoch=float(epoch))
            record("muse (last epoch)", last, time.time() - t0)
        elif route == "muse + refinement":
            base = mappings.get("muse (fit)") or fit_selected("center > muse", pools,
                                                              cfg.muse_epochs, cfg, 128)[0]
            refined, rounds = bootstrap(base, pools.x, pools.y, (pools.val_x, pools.val_y),
                                        BootstrapConfig(rounds=cfg.refinement_rounds, seed=cfg.seed))
            record(route, refined, time.time() - t0 + rows.get("muse", {}).get("seconds", 0),
                   round=float(max(rounds, key=lambda r: r.semantic).round))
        elif route == "gan_realnvp":
            for k, seed in enumerate(cfg.gan_seeds):
                t0 = time.time()
                sel, last, epoch = fit_selected(GAN_SPEC, pools, cfg.gan_epochs, cfg, seed=seed)
                name = route if k == 0 else f"{route} (seed {seed})"
                record(name, sel, time.time() - t0, epoch=float(epoch))
                if k == 0:
                    mappings["gan (fit)"] = sel
                    record("gan_realnvp (last epoch)", last, time.time() - t0)
        elif route in CONSTRAINT_ROUTES:
            base = mappings.get("gan (fit)")
            if base is None:
                raise InputError(f"'{route}' bootstraps the GAN-Real-NVP fit: list 'gan_realnvp' "
                                 "before it", parameter="routes")
            with tempfile.TemporaryDirectory() as tmp:
                refined, rounds = bootstrap(copy.deepcopy(base), pools.x, pools.y,
                                            (pools.val_x, pools.val_y),
                                            BootstrapConfig(**{**vars(bcfg),
                                                               "constraint": CONSTRAINT_ROUTES[route]}),
                                            run_dir=tmp, progress=True)
            record(route, refined, time.time() - t0 + rows["gan_realnvp"]["seconds"],
                   round=float(max(rounds, key=lambda r: r.semantic).round))
        elif route == "mining > center > clp":
            mapping, info = mining_route(u, pools, cfg)
            record(route, mapping, time.time() - t0, **info)
    comparisons = compare_routes(rows, hits, cfg)
    text = format_unsupervised(rows, hits, comparisons, cfg, bed, u, pools)
    sig = signature({"enc": f"{bed.encoder.identity().encoder}", "L": bed.encoder.layer,
                     "data": bed.train.fingerprint(), "protocol": cfg.protocol,
                     "pool": f"{len(pools.x)}x{cfg.per_type}", "seed": cfg.seed})
    text += f"\nsignature: {sig}\n"
    flat = {f"{name}/{k}": v for name, r in rows.items() for k, v in r.items()} | comparisons
    flat["seconds"] = time.time() - start
    report(text, flat, cfg.out_dir, cfg)
    return rows
