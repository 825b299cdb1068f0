"""``crossalign joint-align``: fine-tuning the encoder itself (Joint-Align) on the Bible X–en
(es–en unless a pair is named), with and without NORM and TEXT (Spanish only), against
``center > clp`` and the best trained map, evaluated on the held-out verses through the
*exports* (what a user loads), with the English side's drift."""
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
from alignment.data.splits import parse_pair
from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.evaluation.retrieval import evaluate_mapping
from alignment.export.remapped import load_remapped
from alignment.mappings import Mapping, parse_method
from alignment.encoding.pipeline import PreparedCorpus
from alignment.encoding.text_normalise import SpanishTextNormaliser

from train.runs.reporting import report
from .joint_align_report import delta_metrics, format_joint_align, joint_align_deltas
from .shared import ReferenceConfig, fit_supervised, measure
from .testbed import prepare_bible
from .tuned_vectors import (TunedPairs, encoded, english_cosine, norm_variants, text_test_corpus,
                            text_train_corpus, with_vectors)

VARIANTS = ("plain", "text")


@dataclass
class JointAlignConfig(ReferenceConfig):
    """The test bed, the fine-tuning budget and the references."""

    out_dir: str = field(default="checkpoints/joint-align", metadata={"flag": "out"})
    variants: list[str] | None = field(default=None, metadata={
        "help": "Joint-Align runs: plain, text (TEXT-normalised Spanish; needs apertium-eng-spa) "
                "(default: both for es-en, plain for other pairs)"})
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
    from train.callbacks import KeepBest, LastCheckpoint, SaveEncoder
    from train.ground.trainer import quiet_trainer
    from train.modules import JointAlign
    from train.data.parallel_text import ParallelTextDataModule
    from train.runs.run_log import RunLog

    data, src = Path(cfg.data_dir), parse_pair(cfg.pair)
    dm = ParallelTextDataModule(
        corpora=[{"src": str(data / f"train.{src}"), "tgt": str(data / "train.en"),
                  "src_lang": src, "val_src": str(data / f"dev.{src}"),
                  "val_tgt": str(data / "dev.en")}],
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


def check_variants(cfg: JointAlignConfig) -> None:
    """Settle the default variants for the pair and refuse unknown ones, or TEXT (a Spanish
    rewrite) on another pair, before anything is encoded."""
    spanish = parse_pair(cfg.pair) == "es"
    if cfg.variants is None:
        cfg.variants = list(VARIANTS) if spanish else ["plain"]
    for v in cfg.variants:
        check_choice(v, VARIANTS, "variant", "variants")
    if "text" in cfg.variants and not spanish:
        raise InputError(f"TEXT rewrites Spanish input; the pair is {cfg.pair} (use --variants "
                         "plain)", parameter="variants")
    measure(cfg)  # an unknown measure is refused by name here too


def _same_settings(run_dir: Path, cfg: JointAlignConfig, text: bool) -> bool:
    """Whether ``run_dir`` holds a run of exactly these settings (and version); records them
    for the next call. Only such a run's last checkpoint may be resumed."""
    names = ("pair", "encoder", "layer", "pooling", "train_verses", "val_verses", "batch_size", "seed",
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
    check_variants(cfg)
    normaliser = SpanishTextNormaliser() if "text" in cfg.variants else None
    if normaliser is not None:
        normaliser.check()  # before anything is encoded
    specs = [parse_method(m, "supervised") for m in cfg.supervised]
    encoder = Encoder(EncoderSpec(cfg.encoder, cfg.layer, cfg.pooling))
    bed = prepare_bible(cfg, encoder, with_dev=True)
    out = Path(cfg.out_dir)
    rows: dict[str, dict[str, float]] = {}
    hits: dict[str, np.ndarray] = {}  # per test verse, or per CBLI gold occurrence (--measure)
    lexicon = bed.lexicon
    norm_train = bed.train_data.subset(list(range(min(2000, len(bed.train)))))

    def record(name: str, data: PreparedCorpus, mapping: Mapping | None, seconds: float,
               **extra: float) -> None:
        rows[name] = evaluate_mapping(data, mapping, lexicon) | {"minutes": seconds / 60} | extra
        hits[name] = measure(cfg)[2](data, mapping)
        print(f"  {name}: {bed.src_lang}→en {100 * rows[name]['retrieval_cosine_src2tgt']:.1f}, "
              f"CBLI {100 * rows[name]['cbli_p1']:.1f}", flush=True)

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
    deltas = joint_align_deltas(hits, without_text, cfg.bootstrap_samples, cfg.seed)
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
