"""``crossalign joint-align``: fine-tuning the encoder itself (Joint-Align) on the Bible es–en,
with and without NORM and TEXT, against ``center > clp`` and the best trained map, evaluated on
the held-out verses through the *exports* (what a user loads), with the English side's drift."""
from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from alignment import __version__
from alignment.atomic import write_text
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.evaluation.retrieval import columns, evaluate_mapping, paired_bootstrap, retrieval_hits
from alignment.export.remapped import load_remapped
from alignment.mappings import BASELINE, Mapping, parse_method
from alignment.data.pipeline import PreparedCorpus
from alignment.export.signature import signature
from alignment.encoding.text_normalise import SpanishTextNormaliser

from ..reporting import Column, format_against, format_difference, format_table, report
from .shared import ReferenceConfig, fit_supervised
from .testbed import prepare_bible
from .tuned_vectors import (TunedPairs, encoded, english_cosine, norm_variants, text_test_corpus,
                            text_train_corpus, with_vectors)

COLUMNS = [*columns("es", "en"), ("en_cosine", "en cos f0"), Column("minutes", "min", scale=1)]
VARIANTS = ("plain", "text")


@dataclass
class JointAlignConfig(ReferenceConfig):
    """The test bed, the fine-tuning budget and the references."""

    out_dir: str = field(default="checkpoints/joint-align", metadata={"flag": "out"})
    variants: list[str] = field(default_factory=lambda: list(VARIANTS), metadata={
        "help": "Joint-Align runs: plain, text (TEXT-normalised Spanish; needs apertium-eng-spa)"})
    epochs: int = field(default=3, metadata={
        "help": "fine-tuning epochs (Cao et al.: 1; 3 is the measured best, docs/joint_align.md)"})
    batch_size: int = field(default=8, metadata={"help": "sentence pairs per step"})
    lr: float = field(default=1e-4, metadata={
        "help": "learning rate (Cao et al.: 5e-5; 1e-4 is the measured best at 3 epochs, "
                "docs/joint_align.md)"})
    reg_weight: float = field(default=1.0, metadata={"help": "pivot regulariser weight"})
    val_every: int = field(default=250, metadata={"help": "criteria every N steps"})
    val_verses: int = field(default=500, metadata={"help": "dev verses for the criteria"})
    criterion: str = field(default="semantic", metadata={"help": "selects the step"})
    reuse: bool = field(default=False, metadata={"help": "evaluate the exports already in the "
                        "output folder instead of fine-tuning again (same settings)"})
    bootstrap_samples: int = field(default=1000, metadata={"flag": "bootstrap"})
    stack: bool = field(default=True, metadata={"help": "also fit the supervised references on "
                        "the fine-tuned encoder's vectors (stacked rows, each with its export)"})


def fine_tune(cfg: JointAlignConfig, text: bool, run_dir: Path) -> Path:
    """One Joint-Align run through the Lightning trainer; returns its export directory. An
    interrupted run with the same settings resumes from its last validation."""
    from ..callbacks import KeepBest, LastCheckpoint, SaveEncoder
    from ..trainer import quiet_trainer
    from ..modules import JointAlign
    from ..parallel_text import ParallelTextDataModule
    from ..run_log import RunLog

    data = Path(cfg.data_dir)
    dm = ParallelTextDataModule(
        corpora=[{"src": str(data / "train.es"), "tgt": str(data / "train.en"), "src_lang": "es",
                  "val_src": str(data / "dev.es"), "val_tgt": str(data / "dev.en")}],
        encoder=cfg.encoder, layer=cfg.layer, pooling=cfg.pooling, max_sentences=cfg.train_verses,
        val_sentences=cfg.val_verses, text=text, batch_size=cfg.batch_size, seed=cfg.seed,
        cache_dir=cfg.cache_dir, progress=cfg.progress)
    module = JointAlign(lr=cfg.lr, reg_weight=cfg.reg_weight)
    torch.manual_seed(cfg.seed)
    logger = RunLog()
    logger.bind(str(run_dir))
    last = run_dir / "checkpoints" / "last.ckpt"
    resume = _same_settings(run_dir, cfg, text) and last.is_file()
    if resume:
        print(f"  resuming {run_dir.name} from its last validation ({last})", flush=True)
    elif last.is_file():
        last.unlink()  # an earlier run's, with other settings: never to be resumed by this one
    trainer = quiet_trainer(max_epochs=cfg.epochs,
                            callbacks=[KeepBest(cfg.criterion), LastCheckpoint(), SaveEncoder()],
                            val_check_interval=cfg.val_every, use_distributed_sampler=False,
                            enable_checkpointing=True,
                            enable_progress_bar=cfg.progress, logger=logger,
                            default_root_dir=str(run_dir))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(does not have many workers|"
                                "val_check_interval|number of training batches|LeafSpec).*")
        trainer.fit(module, datamodule=dm, ckpt_path=str(last) if resume else None)
    return run_dir / "export"


def _same_settings(run_dir: Path, cfg: JointAlignConfig, text: bool) -> bool:
    """Whether ``run_dir`` holds a run of exactly these settings (and version); records them
    for the next call. Only such a run's last checkpoint may be resumed."""
    names = ("encoder", "layer", "pooling", "train_verses", "val_verses", "batch_size", "seed",
             "epochs", "lr", "reg_weight", "val_every", "criterion", "data_dir")
    settings = {n: getattr(cfg, n) for n in names} | {"text": text, "version": __version__}
    stamp = run_dir / "settings.json"
    same = stamp.is_file() and json.loads(stamp.read_text()) == settings
    write_text(stamp, json.dumps(settings, indent=1))
    return same


def fine_tuned(cfg: JointAlignConfig, text: bool, run_dir: Path) -> float:
    """Fine-tune into ``run_dir`` (or, with ``reuse``, take the export a finished run left
    there); returns the fit's wall-clock seconds (kept in ``RUN/fit.json``)."""
    record = run_dir / "fit.json"
    if cfg.reuse and record.is_file() and (run_dir / "export" / "remap.json").is_file():
        return float(json.loads(record.read_text())["seconds"])
    t0 = time.time()
    fine_tune(cfg, text, run_dir)
    seconds = time.time() - t0
    write_text(record, json.dumps({"seconds": seconds, "text": text}))
    return seconds


def run_joint_align(cfg: JointAlignConfig) -> dict[str, dict[str, float]]:
    """Run the experiment; returns {row: metrics} and writes table, metrics and each export."""
    start = time.time()
    for v in cfg.variants:
        if v not in VARIANTS:
            from alignment.errors import InputError
            raise InputError(f"unknown variant '{v}' (known: {VARIANTS})", parameter="variants")
    normaliser = SpanishTextNormaliser() if "text" in cfg.variants else None
    if normaliser is not None:
        normaliser.check()  # before anything is encoded
    specs = [parse_method(m, "supervised") for m in cfg.supervised]
    encoder = Encoder(EncoderSpec(cfg.encoder, cfg.layer, cfg.pooling))
    bed = prepare_bible(cfg, encoder, with_dev=True)
    out = Path(cfg.out_dir)
    rows: dict[str, dict[str, float]] = {}
    hits: dict[str, np.ndarray] = {}
    lexicon = bed.lexicon
    norm_train = bed.train_data.subset(list(range(min(2000, len(bed.train)))))

    def record(name: str, data: PreparedCorpus, mapping: Mapping | None, seconds: float,
               **extra: float) -> None:
        rows[name] = evaluate_mapping(data, mapping, lexicon) | {"minutes": seconds / 60} | extra
        hits[name] = retrieval_hits(data, mapping)
        print(f"  {name}: es→en {100 * rows[name]['retrieval_cosine_src2tgt']:.1f}", flush=True)

    record("unmapped", bed.test, None, 0.0, en_cosine=1.0)
    for label, data in norm_variants(bed.test, norm_train, cfg.seed).items():
        record(f"unmapped ⊕ {label}", data, None, 0.0, en_cosine=english_cosine(data, bed.test))
    for spec in specs:
        t0 = time.time()
        mapping = fit_supervised(spec, bed, cfg)
        record(spec.label, bed.test, mapping, time.time() - t0,
               en_cosine=english_cosine(with_vectors(bed.test, bed.test.src.vectors,
                                                     mapping.map_array(bed.test.tgt.vectors, "tgt")),
                                        bed.test))
    drift: dict[str, dict[str, float]] = {}
    without_text: dict[str, str] = {}  # a TEXT row → the same row without TEXT
    for variant in cfg.variants:
        text = variant == "text"
        seconds = fine_tuned(cfg, text, out / f"joint-align-{variant}")
        export = out / f"joint-align-{variant}" / "export"
        remapped = load_remapped(export)
        test = bed.test if not text else text_test_corpus(bed, normaliser, encoder.word_tokenizer)
        tuned = encoded(test, remapped.encoder)
        base = encoded(test, encoder) if text else bed.test
        label = "Joint-Align" + (" ⊕ TEXT" if text else "")
        cos = english_cosine(tuned, base)
        record(label, tuned, None, seconds, en_cosine=cos)
        if text:
            without_text["Joint-Align ⊕ TEXT"] = "Joint-Align"
        ja_train = encoded(norm_train if not text else text_train_corpus(norm_train, normaliser,
                                                                  encoder.word_tokenizer),
                           remapped.encoder)
        for norm_label, data in norm_variants(tuned, ja_train, cfg.seed).items():
            record(f"{label} ⊕ {norm_label}", data, None, seconds,
                   en_cosine=english_cosine(data, base))
            if text:
                without_text[f"{label} ⊕ {norm_label}"] = f"Joint-Align ⊕ {norm_label}"
        drift[label] = _run_metrics(out / f"joint-align-{variant}")
        if cfg.stack and not text:
            for spec in specs:
                t0 = time.time()
                mapping, export_dir = stacked(cfg, bed, spec, remapped, export, out)
                record(f"{label} > {spec.label}", tuned, mapping, seconds + time.time() - t0,
                       en_cosine=english_cosine(with_vectors(
                           tuned, tuned.src.vectors, mapping.map_array(tuned.tgt.vectors, "tgt")),
                           base))
    deltas = joint_align_deltas(hits, without_text, cfg)
    text_out = format_joint_align(rows, hits, deltas, drift, cfg, bed, encoder)
    report(text_out, {f"{n}/{k}": v for n, m in rows.items() for k, v in m.items()}
           | delta_metrics(deltas)
           | {f"{n}/{k}": v for n, m in drift.items() for k, v in m.items()}
           | {"seconds": time.time() - start}, out, cfg)
    return rows


def stacked(cfg: JointAlignConfig, bed, spec, remapped, fine_tuned: Path, out: Path
            ) -> tuple[Mapping, Path]:
    """A supervised reference fitted on the fine-tuned encoder's vectors of the training
    verses, exported with the fine-tuned weights (one directory: encoder + map, scored by
    ``crossalign score --encoder DIR``); returns the map and the export directory."""
    from alignment.export.remapped import export_encoder, read_remap_json
    from alignment.data.vectors import aligned_pairs

    train = encoded(bed.train_data, remapped.encoder)
    x, y, _ = aligned_pairs(train.src, train.tgt, train.alignments)
    mapping = fit_supervised(spec, TunedPairs(x, y, encoded(bed.dev, remapped.encoder)), cfg)
    tuned_meta = read_remap_json(fine_tuned)
    data = replace(bed.provenance, n_pairs=len(x))
    directory = out / f"joint-align-plain-{slug(spec.label)}" / "export"
    export_encoder(directory, remapped.encoder.model, remapped.encoder.tokenizer, mapping, data,
                   text=tuned_meta.get("text"), overwrite=True,
                   extra={"fine_tuned": tuned_meta.get("fine_tuned"),
                          "stacked_on": tuned_meta["signature"]})
    return mapping, directory


def slug(label: str) -> str:
    """A folder name for a method label (``center > clp`` → ``center-clp``)."""
    return "-".join("".join(c if c.isalnum() else " " for c in label).split())


def _run_metrics(run_dir: Path) -> dict[str, float]:
    m = json.loads((run_dir / "metrics.json").read_text())
    return {k: m[k] for k in ("selected_step", "selected_value", "pivot_drift", "pivot_cosine",
                              "reg_loss", "align_loss") if k in m}


def joint_align_deltas(hits: dict[str, np.ndarray], text_rows: dict[str, str],
                       cfg: JointAlignConfig) -> dict[str, dict[str, tuple[float, float, float]]]:
    """Per row, (difference, low, high) against ``center > clp`` (``delta_vs_baseline``) and,
    for a TEXT row, against the same row without TEXT (``text_delta``)."""
    base = parse_method(BASELINE).label
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    for name, h in hits.items():
        if base in hits and name != base:
            out.setdefault(name, {})["delta_vs_baseline"] = paired_bootstrap(
                h, hits[base], cfg.bootstrap_samples, cfg.seed)
        if name in text_rows and text_rows[name] in hits:
            out.setdefault(name, {})["text_delta"] = paired_bootstrap(
                h, hits[text_rows[name]], cfg.bootstrap_samples, cfg.seed)
    return out


def delta_metrics(deltas: dict) -> dict[str, float]:
    """``joint_align_deltas`` as flat metrics: NAME/KIND, NAME/KIND_lo, NAME/KIND_hi."""
    names = {"delta_vs_baseline": ("delta_vs_baseline", "delta_lo", "delta_hi"),
             "text_delta": ("text_delta", "text_delta_lo", "text_delta_hi")}
    return {f"{row}/{key}": value for row, kinds in deltas.items() for kind, triple in kinds.items()
            for key, value in zip(names[kind], triple)}


def format_joint_align(rows, hits, deltas, drift, cfg: JointAlignConfig, bed, encoder) -> str:
    base_label = parse_method(BASELINE).label
    ident = encoder.identity()
    header = (f"Joint-Align on the Bible es–en: {cfg.encoder} layer {encoder.layer}, "
              f"{cfg.pooling}-subword pooling; {len(bed.train)} training verses, "
              f"{len(bed.test.corpus)} held-out verses; fine-tuning: {cfg.epochs} epoch"
              f"{'s' if cfg.epochs != 1 else ''}, batch "
              f"{cfg.batch_size}, lr {cfg.lr}, pivot regulariser {cfg.reg_weight}, the step chosen "
              f"by the {cfg.criterion} criterion on {cfg.val_verses} dev verses every "
              f"{cfg.val_every} steps; every Joint-Align row is evaluated through its export")
    text = f"\n{header}\n\n{format_table(list(rows.items()), COLUMNS)}\n"
    text += ("\nmin: wall-clock minutes of the fit on this machine (Joint-Align: fine-tuning, "
             "selection and export); en cos f0: mean cosine (×100) of the held-out English "
             "word vectors as the row delivers them (encoder, then map or head) to the original "
             "model's (100 = unchanged)\n")
    if base_label in hits:
        text += "\n" + format_against(base_label, {
            name: deltas[name]["delta_vs_baseline"] for name in hits if name != base_label},
            cfg.bootstrap_samples)
    with_text = [n for n in hits if n in deltas and "text_delta" in deltas[n]]
    if with_text:
        text += ("\nTEXT's effect: each ⊕ TEXT row against the same row without TEXT (es→en P@1, "
                 "points, same test verses; paired bootstrap 95% CI):\n")
        width = max(len(n) for n in with_text)
        for name in with_text:
            text += f"  {name:<{width}} {format_difference(*deltas[name]['text_delta'])}\n"
    for name, m in drift.items():
        text += (f"\n{name}: selected step {int(m.get('selected_step', -1))} "
                 f"({cfg.criterion} {m.get('selected_value', float('nan')):.4f}); at the last "
                 f"validation the English dev tokens were at mean squared distance "
                 f"{m.get('pivot_drift', float('nan')):.2f} from f0 (cosine "
                 f"{m.get('pivot_cosine', float('nan')):.4f})")
    sig = signature({"enc": f"{ident.encoder}@{ident.revision}", "L": ident.layer,
                     "pool": ident.pool_label, "data": bed.train.fingerprint()})
    return text + f"\n\nsignature: {sig}\n"
