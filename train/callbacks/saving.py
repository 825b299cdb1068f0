"""Writing what a run keeps: the selected mapping with ``metrics.json``, ``run.json`` and
its export, or a fine-tuned encoder's export."""
from __future__ import annotations

from pathlib import Path

import pytorch_lightning as pl
import torch

from alignment.errors import InputError
from alignment.export.remapped import export_remapped
from alignment.export.provenance import RunRecord
from alignment.unsupervised.iterated_mining import MINED_PAIRS, write_mined_pairs

from train.encoders.fine_tuned_export import export_fine_tuned
from train.runs.reporting import write_metrics
from .selection import KeepBest, final_selection, logged


class SaveMapping(pl.Callback):
    """After fitting: the selected mapping (``final_selection``: a refinement, else the
    criterion's epoch, else the last) as ``mapping/``, ``metrics.json``, ``run.json``, (when
    the data came from an encoder) the remapped-encoder ``export/`` and, for ``mining``, the
    kept sentence pairs (``mined_pairs.tsv``) in the run directory."""

    def __init__(self, dirpath: str | None = None, src_lang: str | None = None,
                 tgt_lang: str | None = None) -> None:
        self.dirpath = dirpath
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def run_dir(self, trainer: pl.Trainer) -> Path:
        return Path(self.dirpath or trainer.default_root_dir)

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if getattr(pl_module, "mapping", None) is None or not trainer.is_global_zero:
            return
        out = self.run_dir(trainer)
        selection = final_selection(trainer, pl_module)
        mapping = selection.mapping
        mapping.save(out / "mapping")
        write_metrics(out / "metrics.json", selection.metrics)
        data = trainer.datamodule.provenance.with_languages(self.src_lang, self.tgt_lang)
        RunRecord(mapping.describe(), mapping.fingerprint(), data,
                  torch.get_num_threads()).write(out)
        if data.encoder is not None:
            export_remapped(out / "export", mapping, data, overwrite=True)  # inside the run
        if hasattr(pl_module, "mined_sentences"):
            write_mined_pairs(out / MINED_PAIRS, pl_module.mined_sentences())


class SaveEncoder(pl.Callback):
    """At the end of fine-tuning (after selection restored the chosen step): ``metrics.json``
    and ``export/`` — the encoder as a plain HF model directory with its head (``norm``: each
    language's running mean/variance from up to ``norm_sentences`` training sentences per
    corpus; ``identity``: none) and every language's NORM statistics. List it after
    ``KeepBest``."""

    def __init__(self, dirpath: str | None = None, head: str = "norm",
                 norm_sentences: int = 2000) -> None:
        if head not in ("norm", "identity"):
            raise InputError(f"must be 'norm' or 'identity', got '{head}'", parameter="head")
        if norm_sentences < 1:
            raise InputError(f"must be >= 1, got {norm_sentences}", parameter="norm_sentences")
        self.dirpath, self.head, self.norm_sentences = dirpath, head, norm_sentences

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.is_global_zero:
            return
        out = Path(self.dirpath or trainer.default_root_dir)
        metrics = logged(trainer)
        kept = next((c.kept() for c in trainer.callbacks if isinstance(c, KeepBest)), None)
        extra = {"fine_tuned": "joint_align", "hyperparameters": dict(pl_module.hparams)}
        if kept is not None:  # the selected step's numbers
            metrics = {**kept.metrics, "selected_step": float(kept.step),
                       "selected_value": kept.value, "last_step": float(trainer.global_step)}
            extra["selection"] = {"criterion": kept.criterion, "step": kept.step,
                                  "value": kept.value}
        write_metrics(out / "metrics.json", metrics)
        dm = trainer.datamodule
        extra["norm_sentences"] = self.norm_sentences
        export_fine_tuned(pl_module.encoder, dm.sentences_per_language(self.norm_sentences),
                          dm.provenance, out / "export", self.head, dm.text_settings, extra)
