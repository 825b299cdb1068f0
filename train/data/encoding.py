"""Data-parallel encoding into the vector cache: ``Trainer.predict`` over N devices or nodes,
each process encoding its own share of the sentences (no sentence twice, no padding repeats),
the shares gathered in corpus order and written to the same cache entry ``prepare`` reads."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from alignment.data.batching import make_batches
from alignment.encoding.encoder import Encoder
from alignment.encoding.pipeline import cache_entry, save_cache_entry
from alignment.data.vectors import WordVectors


def shard(n: int, rank: int, world: int) -> list[int]:
    """Items rank, rank + world, …: every item on exactly one process (shares differ by at
    most one; nothing is repeated to even them out, unlike ``DistributedSampler``)."""
    return list(range(rank, n, world))


class _Batches(Sampler[list[int]]):
    def __init__(self, batches: list[list[int]]) -> None:
        self.batches = batches

    def __iter__(self):
        return iter(self.batches)

    def __len__(self) -> int:
        return len(self.batches)


class _Indices(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


class SentenceShards(pl.LightningDataModule):
    """Length-bucketed batches of this process's share of the sentences."""

    def __init__(self, tokens: list[list[str]], batch_size: int = 64) -> None:
        super().__init__()
        self.tokens, self.batch_size = tokens, batch_size

    def predict_dataloader(self) -> DataLoader:
        rank = self.trainer.global_rank if self.trainer else 0
        world = self.trainer.world_size if self.trainer else 1
        mine = shard(len(self.tokens), rank, world)
        local = make_batches([len(self.tokens[i]) for i in mine], self.batch_size)
        batches = [[mine[k] for k in b] for b in local]
        return DataLoader(_Indices(len(self.tokens)), batch_sampler=_Batches(batches),
                          collate_fn=list)


class EncodeWords(pl.LightningModule):
    """Word vectors of the sentences in each batch; at the end of the epoch the processes'
    results are gathered, and process 0 holds them all in ``result`` (corpus order)."""

    def __init__(self, encoder: Encoder, tokens: list[list[str]]) -> None:
        super().__init__()
        self.encoder, self.tokens = encoder, tokens
        self.model = encoder.model  # a submodule, so the strategy moves it to the device
        self._local: list[tuple[int, np.ndarray]] = []
        self.result: list[np.ndarray] | None = None

    def on_predict_start(self) -> None:
        self.encoder.device = self.device
        self.model.eval()

    def predict_step(self, batch: list[int], batch_idx: int) -> None:
        vecs = self.encoder.encode_words([self.tokens[i] for i in batch], batch_size=len(batch),
                                         bucket=False, progress=False)
        self._local.extend(zip(batch, vecs))

    def on_predict_epoch_end(self) -> None:
        parts = [self._local]
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            parts = [None] * torch.distributed.get_world_size()
            torch.distributed.all_gather_object(parts, self._local)
        if self.trainer.is_global_zero:
            merged = sorted((item for part in parts for item in part), key=lambda t: t[0])
            if [i for i, _ in merged] != list(range(len(self.tokens))):
                raise RuntimeError("data-parallel encoding lost or repeated sentences")
            self.result = [v for _, v in merged]


def encode_to_cache(encoder: Encoder, sentences: list[str], tokens: list[list[str]],
                    trainer: pl.Trainer, cache_dir: Path | None = None,
                    batch_size: int = 64) -> Path | None:
    """Encode one corpus side with ``trainer`` (any devices/strategy) into the vector cache
    entry ``alignment.encoding.pipeline.encode_side`` reads; returns its path on process 0 (None on
    the others)."""
    path, made_by = cache_entry(encoder, sentences, cache_dir,
                                "bf16" if "bf16" in str(trainer.precision) else "fp32",
                                trainer.strategy.root_device.type)
    module = EncodeWords(encoder, tokens)
    trainer.predict(module, datamodule=SentenceShards(tokens, batch_size), return_predictions=False)
    if not trainer.is_global_zero:
        return None
    assert module.result is not None
    save_cache_entry(WordVectors.from_list(module.result), path, made_by)
    return path
