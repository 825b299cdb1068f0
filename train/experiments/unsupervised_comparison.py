"""``crossalign unsupervised``: aligning Spanish to English with no parallel data on the unpaired
Bible test bed — VecMap-style, MUSE-style (± Procrustes refinement), GAN-Real-NVP (± self-training
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
from alignment.evaluation.retrieval import apply_mapping, evaluate_mapping
from alignment.mappings import Mapping, MethodSpec, parse_method
from alignment.unsupervised.self_training import Judge, label_judge, lexicon_judge
from alignment.unsupervised.iterated_mining import SentenceSide
from alignment.signature import EncoderSignature, TableSignature
from alignment.data.vectors import aligned_pairs

from train.unsupervised.self_training import SelfTrainingConfig, self_train
from train.callbacks import KeepBest
from train.fitting.in_process import fit_module
from train.data.unpaired import UnpairedVectorDataModule
from train.runs.reporting import report
from .unsupervised_routes import (ROUTES, FittedOnMined, PoolFit, Route, base_route,
                                  current_route_names, route_for)
from .shared import ReferenceConfig, at_most, fit_supervised, fit_trained, measure
from .testbed import UnpairedBible, prepare_bible, protocol_name, unpaired_bible
from .unsupervised_report import (compare_routes, format_unsupervised, mining_report,
                                  seed_dictionary_report)

@dataclass
class UnsupervisedConfig(ReferenceConfig):
    """The unpaired test bed, each route's budget, and the supervised references."""

    out_dir: str = field(default="checkpoints/unsupervised", metadata={"flag": "out"})
    protocol: str = field(default="disjoint", metadata={"help": "disjoint (es and en from "
                          "different verses: no translation anywhere), comparable (the same "
                          "verses, each language sampled on its own; 0.3's 'shuffled') or "
                          "pairs-permuted (the paper's: the aligned word pairs, English "
                          "permuted)"})
    routes: list[str] = field(default_factory=lambda: list(ROUTES), metadata={
        "help": "routes to run: named ones, or any method that learns without pairs"})
    pool_tokens: int = field(default=20000, metadata={"help": "training tokens per language"})
    per_type: int = field(default=20, metadata={"help": "at most this many tokens per word type"})
    vecmap_types: int = field(default=4000, metadata={"help": "most frequent types for VecMap"})
    muse_epochs: int = 5
    gan_epochs: int = 16
    epochs: int = field(default=10, metadata={"help": "epochs of a route given as a method string"})
    gan_seeds: list[int] = field(default_factory=lambda: [0, 1], metadata={
        "help": "GAN-Real-NVP seeds: the first is self-trained, the others are reported alone "
                "(seed-to-seed spread, collapses)"})
    rounds: int = field(default=3, metadata={"help": "self-training rounds (paper: 3 on real data)"})
    self_training_map_steps: int = field(default=250, metadata={
        "help": "Algorithm 1: map updates a round", "old": "boot_map_steps"})
    self_training_weight: float = field(default=1.0, metadata={"old": "boot_weight", "help": "self-training's constraint "
                               "weight (a mean: × d gives the paper's sum)"})
    refinement_rounds: int = field(default=5, metadata={"help": "MUSE's Procrustes rounds", "min": 0})
    mining_rounds: int = field(default=5, metadata={"help": "mine → align → fit iterations"})
    mining_threshold: float = field(default=1.05, metadata={"help": "ratio-margin threshold"})
    mining_criterion: str = field(default="mined", metadata={
        "help": "what must rise for mining to iterate: semantic (the criterion on the "
                "validation pools) or mined (the number of mined sentence pairs)"})
    bootstrap_samples: int = field(default=1000, metadata={"flag": "bootstrap",
                                   "help": "paired bootstrap resamples for the intervals"})


@dataclass
class Pools:
    """The arrays every route sees: sampled training pools and unpaired validation pools."""

    x: np.ndarray
    y: np.ndarray
    val_x: np.ndarray
    val_y: np.ndarray
    judge: Judge | None = None  # which pairs of x and y rows are translations (reporting only)

    def datamodule(self, batch_size: int, seed: int, rows: tuple[np.ndarray, np.ndarray] | None = None,
                   sides: tuple[SentenceSide, SentenceSide] | None = None
                   ) -> UnpairedVectorDataModule:
        """The pools (or other unpaired ``rows``) in independent orders, with the validation
        pools (and the encoded ``sides``, for mining)."""
        x, y = rows or (self.x, self.y)
        n = min(len(x), len(y))
        return UnpairedVectorDataModule.from_arrays(
            x[:n], y[:n], val=(self.val_x, self.val_y), sides=sides, batch_size=batch_size,
            shuffle=rows is None, seed=seed)


def make_pools(u: UnpairedBible, cfg: UnsupervisedConfig) -> Pools:
    """``pool_tokens`` rows a language (``val_tokens`` for validation). ``pairs-permuted``:
    a seeded sample of the aligned word pairs, the English rows permuted; otherwise each
    language's tokens sampled on its own, at most ``per_type`` per word type."""
    if u.protocol == "pairs-permuted":
        return permuted_pairs(u.bed, cfg.pool_tokens, cfg.val_tokens, cfg.seed)
    xs = u.src.capped_sample(cfg.pool_tokens, cfg.per_type, cfg.seed)
    ys = u.tgt.capped_sample(cfg.pool_tokens, cfg.per_type, cfg.seed + 1)
    vx = u.val_src.vectors[u.val_src.capped_sample(cfg.val_tokens, cfg.per_type, cfg.seed + 2)]
    vy = u.val_tgt.vectors[u.val_tgt.capped_sample(cfg.val_tokens, cfg.per_type, cfg.seed + 3)]
    n, m = min(len(xs), len(ys)), min(len(vx), len(vy))
    xs, ys = xs[:n], ys[:n]
    judge = None if u.bed.lexicon is None else lexicon_judge(  # a row is its word's occurrence
        [u.src.words[t] for t in u.src.type_ids[xs]], [u.tgt.words[t] for t in u.tgt.type_ids[ys]],
        u.bed.lexicon)
    return Pools(u.src.vectors[xs], u.tgt.vectors[ys], vx[:m], vy[:m], judge)


def permuted_pairs(bed, pool_tokens: int, val_tokens: int, seed: int) -> Pools:
    """Zhao & Eger 2022's unpaired protocol: aligned word pairs (training verses; validation
    from the dev verses), their target rows permuted — every row's translation is in the
    other pool, no row is paired with it."""
    rng = np.random.default_rng(seed)

    def unpaired(x: np.ndarray, y: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pick = np.sort(rng.choice(len(x), min(n, len(x)), replace=False))
        perm = rng.permutation(len(pick))
        return x[pick], y[pick][perm], perm

    x, y, perm = unpaired(bed.x, bed.y, pool_tokens)
    vx, vy, _ = aligned_pairs(bed.dev.src, bed.dev.tgt, bed.dev.alignments)
    vx, vy, _ = unpaired(vx, vy, val_tokens)
    # target row j came from the aligned pair of source row perm[j]
    return Pools(x, y, vx, vy, label_judge(np.arange(len(x)), perm))


def semantic_on(pools: Pools, mapping: Mapping | None) -> float:
    """The label-free criterion on the unpaired validation pools."""
    return semantic_criterion(torch.from_numpy(apply_mapping(mapping, pools.val_x, "src")),
                              torch.from_numpy(apply_mapping(mapping, pools.val_y, "tgt")))


def type_centroids(u: UnpairedBible, cfg: UnsupervisedConfig) -> tuple[tuple, tuple]:
    """((source words, target words), (source rows, target rows)): the centroids of each
    language's ``vecmap_types`` most frequent types with at least 3 tokens."""
    words, rows = zip(*(p.centroids(top=cfg.vecmap_types, min_count=3) for p in (u.src, u.tgt)))
    return words, rows


def route_data(fit: PoolFit, u: UnpairedBible, pools: Pools, cfg: UnsupervisedConfig,
               types: tuple[tuple, tuple] | None) -> UnpairedVectorDataModule:
    """What a fit reads (``PoolFit.rows``); ``types``: ``type_centroids``' output (needed by
    ``types`` fits only)."""
    if fit.rows == "types":
        return pools.datamodule(fit.batch_size, cfg.seed, rows=types[1])
    if fit.rows == "sentences":
        tr = u.bed.train_data
        sides = (SentenceSide(tr.src.subset(u.src_verses), [tr.src_tokens[i] for i in u.src_verses]),
                 SentenceSide(tr.tgt.subset(u.tgt_verses), [tr.tgt_tokens[i] for i in u.tgt_verses]))
        return pools.datamodule(fit.batch_size, cfg.seed, sides=sides)
    return pools.datamodule(fit.batch_size, cfg.seed)


def fit_on_pools(fit: PoolFit, spec: MethodSpec, dm: UnpairedVectorDataModule,
                 cfg: UnsupervisedConfig, seed: int) -> tuple[object, Mapping, int]:
    """The fitted module (its mapping at the epoch the semantic criterion picked), the last
    epoch's mapping (the fixed-budget comparison) and the picked epoch."""
    torch.manual_seed(seed)
    if fit.epochs is None:
        module = fit_module(spec, dm, 1, **fit.settings(cfg))  # no steps: one pass
        return module, module.mapping, 0
    keep = KeepBest("semantic")
    module = fit_module(spec, dm, fit.epochs(cfg), callbacks=[keep], **fit.settings(cfg))
    last = copy.deepcopy(module.mapping)
    last.load_state_dict(keep.last_state)
    return module, last, int(keep.best_epoch or 0)


def check_routes(cfg: UnsupervisedConfig) -> tuple[dict[str, Route], dict[str, MethodSpec]]:
    """Every listed route (a refinement after the route whose fit it refines) and every method
    text the run fits (the routes' and the supervised rows'), each parsed once — before the
    corpus and the supervised fits."""
    specs: dict[str, MethodSpec] = {}
    cfg.routes = current_route_names(cfg.routes)
    routes = {name: route_for(name, specs) for name in cfg.routes}
    for i, (name, route) in enumerate(routes.items()):
        if route.then is None:
            continue
        base = base_route(route)
        if base not in cfg.routes[:i]:
            raise InputError(f"'{name}' builds on '{base}': list it first", parameter="routes")
    methods = [r.fit.method for r in routes.values()] + [
        r.then.method for r in routes.values() if isinstance(r.then, FittedOnMined)]
    for texts, parameter in ((methods, "routes"), (cfg.supervised, "supervised")):
        for text in texts:
            if text not in specs:
                specs[text] = parse_method(text, parameter)
    return routes, specs


def run_unsupervised(cfg: UnsupervisedConfig) -> dict[str, dict[str, float]]:
    cfg = replace(cfg, protocol=protocol_name(cfg.protocol))  # before anything is encoded
    routes, specs = check_routes(cfg)
    supervised = [specs[m] for m in cfg.supervised]
    start = time.time()
    bed = prepare_bible(cfg, with_dev=True)
    u = unpaired_bible(bed, cfg.protocol)
    pools = make_pools(u, cfg)
    rows, hits = {}, {}  # name -> metrics; name -> per-item hits of the compared measure
    hit_fn = measure(cfg)[2]
    mappings: dict[str, Mapping | None] = {}

    def record(name: str, mapping: Mapping | None, seconds: float, **extra: float) -> None:
        result = evaluate_mapping(bed.test, mapping, bed.lexicon)
        result.update(seconds=seconds, semantic=semantic_on(pools, mapping), **extra)
        rows[name], hits[name], mappings[name] = result, hit_fn(bed.test, mapping), mapping
        print(f"{name}: {bed.src_lang}→en {100 * result['retrieval_cosine_src2tgt']:.1f}, semantic "
              f"{result['semantic']:.4f}, {seconds:.0f} s", flush=True)

    record("unmapped", None, 0.0)
    for spec in supervised:  # paired data: the references the unsupervised routes aim at
        t0 = time.time()
        record(f"supervised: {spec.label}", fit_supervised(spec, bed, cfg), time.time() - t0)
    fitted: dict[PoolFit, tuple[str, object]] = {}  # fit -> its route and module (first seed)
    types = type_centroids(u, cfg) if any(r.fit.rows == "types" for r in routes.values()) \
        else None
    for name, route in routes.items():
        fit, t0 = route.fit, time.time()
        if route.then is not None:
            base, module = fitted[fit]
            if isinstance(route.then, FittedOnMined):
                xs, ys = module.mined_pairs()
                xs, ys = at_most(xs, ys, cfg.max_pairs, np.random.default_rng(cfg.seed))
                record(name, fit_trained(specs[route.then.method], xs, ys,
                                         (pools.val_x, pools.val_y), cfg),
                       time.time() - t0 + rows[base]["seconds"], mined_word_pairs=float(len(xs)))
                continue
            refine = route.then  # the adversarial refit takes the fit's settings and batch
            settings = SelfTrainingConfig(
                rounds=refine.rounds(cfg), seed=cfg.seed, refit=refine.refit,
                constraint=refine.constraint or SelfTrainingConfig.constraint,
                constraint_weight=cfg.self_training_weight,
                map_steps=cfg.self_training_map_steps,
                adversarial=dict(specs[fit.method].overrides),
                batch_size=fit.batch_size if refine.refit == "adversarial"
                else SelfTrainingConfig.batch_size)
            with tempfile.TemporaryDirectory() as tmp:
                refined, rounds = self_train(copy.deepcopy(module.mapping), pools.x, pools.y,
                                             (pools.val_x, pools.val_y), settings, run_dir=tmp,
                                             progress=True, judge=pools.judge)
            record(name, refined, time.time() - t0 + rows[base]["seconds"],
                   round=float(max(rounds, key=lambda r: r.semantic).round),
                   **{f"precision_r{r.round}": r.precision for r in rounds[1:]
                      if r.precision is not None})
            continue
        dm = route_data(fit, u, pools, cfg, types)
        for k, seed in enumerate(cfg.gan_seeds if fit.seeds else [cfg.seed]):
            t0 = time.time()
            module, last, epoch = fit_on_pools(fit, specs[fit.method], dm, cfg, seed)
            extra = (mining_report(module, u) if fit.rows == "sentences" else
                     seed_dictionary_report(module, types[0], bed.lexicon)
                     if fit.rows == "types" else {})
            if fit.epochs is not None:
                extra["epoch"] = float(epoch)
            record(name if k == 0 else f"{name} (seed {seed})", module.mapping,
                   time.time() - t0, **extra)
            if k == 0:
                fitted[fit] = (name, module)
                if fit.epochs is not None:
                    record(f"{name} (last epoch)", last, time.time() - t0)
    comparisons = compare_routes(rows, hits, cfg)
    text = format_unsupervised(rows, hits, comparisons, cfg, bed, u, pools)
    ident = bed.encoder.identity()
    sig = TableSignature(EncoderSignature.of(ident), ident.pool_label, bed.train.fingerprint(),
                         align=bed.provenance.aligner, protocol=cfg.protocol,
                         pools=f"{len(pools.x)}x{cfg.per_type}", seed=cfg.seed)
    text += f"\nsignature: {sig}\n"
    flat = {f"{name}/{k}": v for name, r in rows.items() for k, v in r.items()} | comparisons
    flat["seconds"] = time.time() - start
    report(text, flat, cfg.out_dir, cfg)
    return rows
