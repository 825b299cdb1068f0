"""A quiet Lightning Trainer for fits inside a larger job, and the framework advice it
silences."""
from __future__ import annotations

import logging
import math

import pytorch_lightning as pl

# Lightning's advice that does not apply to in-memory tensors or to one-pass closed-form fits
# (no optimizer, no worker processes, few batches per epoch)
RECIPE_NOISE = ".*(run with no optimizer|does not have many workers|logging interval|LeafSpec).*"


def quiet_trainer(max_epochs: int = 1, callbacks: list | None = None, **kwargs) -> pl.Trainer:
    """A Trainer without logger, progress bar, summary or banner, on one device of whatever
    accelerator Lightning finds (override with ``accelerator=``)."""
    for name in ("pytorch_lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(name).setLevel(logging.WARNING)
    settings = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                    enable_model_summary=False, devices=1, num_sanity_val_steps=0)
    settings.update(kwargs)
    return pl.Trainer(max_epochs=max_epochs, callbacks=callbacks or [], **settings)


def epochs_for_updates(updates: int, rows: int, batch_size: int) -> int:
    """Epochs enough for ``updates`` optimiser updates over ``rows`` rows in batches, with one
    to spare: a step budget (``map_steps``) ends such a run, not the epoch count."""
    return math.ceil(updates / math.ceil(rows / batch_size)) + 1
