"""Callbacks: save the fitted mapping explicitly (closed-form fits take no optimizer step, so
Lightning's ModelCheckpoint would write nothing), write metrics.json and the export."""
from __future__ import annotations

import json
from pathlib import Path

import pytorch_lightning as pl

from alignment.atomic import write_text
from alignment.export import export_remapped


def write_metrics(path: str | Path, metrics: dict[str, float]) -> None:
    """Flat keys, numbers only; written atomically."""
    flat = {k: float(v) for k, v in metrics.items()}
    write_text(path, json.dumps(flat, indent=2, sort_keys=True))


class SaveMapping(pl.Callback):
    """At the end of training: ``mapping/``, ``metrics.json`` and (when the data came from an
    encoder) the remapped-encoder ``export/`` in the run directory."""

    def __init__(self, dirpath: str | None = None, src_lang: str | None = None,
                 tgt_lang: str | None = None) -> None:
        self.dirpath = dirpath
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def run_dir(self, trainer: pl.Trainer) -> Path:
        return Path(self.dirpath or trainer.default_root_dir)

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        mapping = getattr(pl_module, "mapping", None)
        if mapping is None or not trainer.is_global_zero:
            return
        out = self.run_dir(trainer)
        ckpt = trainer.checkpoint_callback
        best = getattr(ckpt, "best_model_path", "") if ckpt is not None else ""
        if best and getattr(ckpt, "monitor", None):
            # the epoch the monitored criterion picked, not the last one
            import torch

            state = torch.load(best, map_location="cpu", weights_only=False)["state_dict"]
            pl_module.load_state_dict(state)
            mapping = pl_module.mapping
        mapping.save(out / "mapping")
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items() if v.numel() == 1}
        write_metrics(out / "metrics.json", metrics)
        dm = trainer.datamodule
        run = {"mapping_type": mapping.describe(), "mapping_fingerprint": mapping.fingerprint(),
               "encoder": getattr(dm, "encoder_identity", None),
               "data_fingerprint": getattr(dm, "data_fingerprint", None),
               "n_sentences": getattr(dm, "n_sentences", None),
               "corpus": getattr(dm, "corpus_name", None),
               "n_pairs": int(dm.x.shape[0]) if getattr(dm, "x", None) is not None else None}
        src = self.src_lang or getattr(dm.hparams, "src_lang", "src")
        tgt = self.tgt_lang or getattr(dm.hparams, "tgt_lang", "tgt")
        run.update(src_lang=src, tgt_lang=tgt)
        write_text(out / "run.json", json.dumps(run, indent=2))
        if run["encoder"] is not None:
            export_remapped(out / "export", mapping, run["encoder"], src, tgt,
                            run["data_fingerprint"], run["n_pairs"], run["n_sentences"],
                            run["corpus"] or "corpus")
