"""A multi-process run's strategy: its processes wait for each other a bounded time, and its
process group outlives the predict loop, so the caller's last barrier still waits for every
process (a group ended on teardown let process 0 merge shards the others had not written)."""
from __future__ import annotations

import datetime
import os

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

from train.ground.cluster import PEER_TIMEOUT_ENV, peer_timeout
from train.ground.distributed import BoundedDDPStrategy, end_process_group


class _Echo(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def predict_step(self, batch, batch_idx):
        self.seen.append(int(batch))
        return batch


def test_the_process_group_outlives_predict_for_the_last_barrier(monkeypatch):
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "29533")
    monkeypatch.setenv(PEER_TIMEOUT_ENV, "45")
    strategy = BoundedDDPStrategy()
    assert strategy._timeout == datetime.timedelta(seconds=45) == datetime.timedelta(
        seconds=peer_timeout())
    trainer = pl.Trainer(accelerator="cpu", devices=1, strategy=strategy, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False)
    module = _Echo()
    before = dict(os.environ)  # Lightning sets the run's ranks in the environment
    try:
        trainer.predict(module, DataLoader([1, 2, 3], batch_size=None), return_predictions=False)
        assert module.seen == [1, 2, 3]
        assert torch.distributed.is_initialized()  # the caller's barrier still has its peers
        trainer.strategy.barrier()
    finally:
        end_process_group()
        for key in set(os.environ) - set(before):
            del os.environ[key]
        os.environ.update(before)
    assert not torch.distributed.is_initialized()
