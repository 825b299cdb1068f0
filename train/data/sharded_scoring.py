"""Scoring in shards through Lightning's predict loop: ``--devices N``, ``--num-nodes M``,
torchrun and SLURM spread the shards not yet scored over the processes (each shard on exactly
one process, none repeated to even the shares out); each process builds its scorer on its own
device and writes each shard's scores as it finishes it (``alignment.xmover.shards``)."""
from __future__ import annotations

from typing import Callable

import pytorch_lightning as pl
from torch.utils.data import DataLoader

from alignment.xmover.shards import PairFiles, Shard, ShardStore
from .encoding import shard


class ShardQueue(pl.LightningDataModule):
    """This process's share of the shards left to score, one shard (its index) a batch."""

    def __init__(self, todo: list[Shard]) -> None:
        super().__init__()
        self.todo = todo

    def predict_dataloader(self) -> DataLoader:
        rank = self.trainer.global_rank if self.trainer else 0
        world = self.trainer.world_size if self.trainer else 1
        self.mine = [self.todo[i].index for i in shard(len(self.todo), rank, world)]
        return DataLoader(self.mine, batch_size=None)


class ScoreShards(pl.LightningModule):
    """Scores each shard it is given with a scorer built on this process's device (``build``:
    device → scorer), and keeps its scores in the store."""

    def __init__(self, build: Callable[[str], object], files: PairFiles, store: ShardStore,
                 progress: bool = False) -> None:
        super().__init__()
        self.build, self.files, self.store, self.progress = build, files, store, progress
        self.scorer, self.bar = None, None

    def on_predict_start(self) -> None:
        import torch
        from tqdm.auto import tqdm

        if self.device.type == "cpu" and self.trainer.num_devices > 1:  # the cores shared out
            torch.set_num_threads(max(1, torch.get_num_threads() // self.trainer.num_devices))
        self.scorer = self.build(str(self.device))
        mine = self.trainer.datamodule.mine
        self.bar = tqdm(total=sum(self.store.shards[i].count for i in mine), unit="pair",
                        desc=f"scoring {len(mine)} shards", disable=not self.progress or None,
                        leave=False)
        if self.scorer.signature != self.store.signature:  # the same setting on every process
            raise RuntimeError(f"process {self.global_rank} signs {self.scorer.signature}, "
                               f"not the run's {self.store.signature}")

    def predict_step(self, batch: int, batch_idx: int) -> None:
        one = self.store.shards[int(batch)]
        sources, hypotheses = self.files.read(one)
        self.store.write(one, self.scorer.score(sources, hypotheses, warn=False))
        self.bar.update(one.count)

    def on_predict_end(self) -> None:
        self.bar.close()


def score_in_shards(trainer: pl.Trainer, build: Callable[[str], object], files: PairFiles,
                    store: ShardStore, todo: list[Shard], progress: bool = False) -> None:
    """Score ``todo`` with ``trainer``'s processes; every process returns once all are done."""
    import warnings

    with warnings.catch_warnings():  # Lightning's advice for training, not for this pass
        warnings.filterwarnings("ignore", message=".*(does not have many workers|predict "
                                "returned None|custom batch sampler|LeafSpec).*")
        trainer.predict(ScoreShards(build, files, store, progress), datamodule=ShardQueue(todo),
                        return_predictions=False)
    trainer.strategy.barrier()
