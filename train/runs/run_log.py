"""The run's own CSV log and config: ``RUN/log/metrics.csv`` (one folder per run, no
``version_N``), continued by a resumed run, and ``RUN/config.yaml`` written only by a fit that
finished (a failed fit leaves no config behind)."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytorch_lightning as pl
from lightning_fabric.loggers.logger import rank_zero_experiment
from pytorch_lightning.cli import SaveConfigCallback
from pytorch_lightning.loggers import CSVLogger
from pytorch_lightning.loggers.csv_logs import ExperimentWriter

from alignment.atomic import write_text


class _ContinuingWriter(ExperimentWriter):
    """Metrics rows kept in one file across a resume: rows of the epochs (and steps) a resumed
    run redoes are replaced, earlier rows kept; a fresh run (epoch 0) replaces the whole file."""

    def __init__(self, log_dir: str) -> None:
        self._kept: list[dict[str, Any]] | None = None
        self._written: list[dict[str, Any]] = []
        super().__init__(log_dir)

    def _check_log_dir_exists(self) -> None:  # the base class deletes metrics.csv here
        return

    def save(self) -> None:
        if not self.metrics:
            return
        if self._kept is None:  # the first save decides which old rows survive
            self._kept = [row for row in _read_rows(Path(self.metrics_file_path))
                          if _before(row, self.metrics[0])]
        self._written.extend(self.metrics)
        self.metrics = []
        rows = self._kept + self._written
        keys = sorted({k for row in rows for k in row})
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        write_text(self.metrics_file_path, buf.getvalue())


def _before(old: dict[str, Any], first_new: dict[str, Any]) -> bool:
    """Whether an old row precedes the resumed run's first row (by epoch, then by step)."""
    for key in ("epoch", "step"):
        if key in old and key in first_new:
            return float(old[key]) < float(first_new[key])
    return False


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return [{k: v for k, v in row.items() if v not in ("", None)} for row in csv.DictReader(fh)]


class RunLog(CSVLogger):
    """CSV log in ``RUN/log`` (``save_dir`` defaults to the trainer's ``default_root_dir``, bound
    by ``crossalign fit``); a run resumed with ``--ckpt_path`` appends to the same file."""

    def __init__(self, save_dir: str | None = None, name: str = "log") -> None:
        super().__init__(save_dir or ".", name="", version=name)
        self._bound = save_dir is not None

    def bind(self, run_dir: str | Path) -> None:
        """Log under ``run_dir`` unless a ``save_dir`` was given."""
        if not self._bound:
            self._save_dir = str(run_dir)
            self._bound = True

    @property
    @rank_zero_experiment
    def experiment(self) -> ExperimentWriter:
        if self._experiment is None:
            if not self._bound:
                raise RuntimeError("RunLog has no folder: give save_dir or call bind(run_dir)")
            self._fs.makedirs(self.log_dir, exist_ok=True)
            self._experiment = _ContinuingWriter(log_dir=self.log_dir)
        return self._experiment


class SaveConfigOnSuccess(SaveConfigCallback):
    """``RUN/config.yaml`` (the resolved recipe) written atomically once the fit has finished, in
    the run folder whatever the logger: a fit that fails or is interrupted writes none."""

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        return

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.is_global_zero:
            text = self.parser.dump(self.config, skip_none=False)
            write_text(Path(trainer.default_root_dir) / self.config_filename, text)
