"""Fitting ``mining`` (iterated pseudo-parallel mining): no gradient steps; before the first
batch, sentence pairs are mined from the data module's two unpaired corpora, their words
aligned and a closed-form map fitted, re-mining through each new map
(``alignment.unsupervised.iterated_mining``)."""
from __future__ import annotations

from pytorch_lightning.utilities import rank_zero_info

from alignment.errors import InputError
from alignment.mappings import LinearMap, Mapping, MethodSpec
from alignment.mappings.moments import PairStatistics
import numpy as np

from alignment.unsupervised.iterated_mining import (MiningRound, MiningSettings,
                                                    few_translations_note, iterate_mining,
                                                    mined_word_pairs)

from train.modules.mapping_fit import MappingFit, NoGradientSteps


class MiningFit(NoGradientSteps, MappingFit):
    """``mining`` on an ``UnpairedVectorDataModule`` (it reads the encoded sentences of both
    sides, ``sides``, and its unpaired validation pools for the semantic criterion).
    ``rounds``, ``threshold``, ``k``, ``fit``, ``min_sentences`` and ``criterion`` are
    ``MiningSettings``; the saved mapping is the ``fit`` composition of the kept iteration.
    Run it for one epoch; every iteration's record is ``self.rounds``."""

    family = "mining"

    paired_validation = False

    def __init__(self, method: str | MethodSpec = "mining", rounds: int = 5, threshold: float = 1.05,
                 k: int = 4, fit: str = "center > clp", min_sentences: int = 10,
                 criterion: str = "mined", semantic_top: float = 1000,
                 semantic_mutual: bool = False, dim: int | None = None) -> None:
        settings = MiningSettings(rounds, threshold, k, fit, min_sentences, semantic_top,
                                  semantic_mutual, criterion)  # checked before anything else
        super().__init__(method, semantic_top, semantic_mutual)
        self.settings = settings
        self.save_hyperparameters()
        self._take_no_steps()
        self.rounds: list[MiningRound] = []
        self._build_now(dim)

    def _check_method(self, spec):
        method = super()._check_method(spec)
        if spec.pre_stages:
            raise InputError(f"'{spec.name}': mining fits its own stages after mining (its "
                             "'fit' setting, e.g. mining:fit=center > clp); give 'mining' alone",
                             parameter="method")
        return method

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        return LinearMap(dim)  # the identity: the first iteration mines unmapped vectors

    def on_train_start(self) -> None:
        dm = self.trainer.datamodule
        sides, val = getattr(dm, "sides", None), getattr(dm, "val", None)
        if sides is None:
            raise InputError(f"mining reads the encoded sentences of both languages; "
                             f"{type(dm).__name__} has none (use "
                             "train.data.unpaired.UnpairedVectorDataModule)", parameter="data")
        if val is None:
            raise InputError("mining picks its iteration by the semantic criterion on unpaired "
                             "validation pools: set data val_fraction > 0", parameter="val_fraction")
        device = self.device

        def report(r: MiningRound) -> None:
            rank_zero_info(f"mining iteration {r.iteration}: {len(r.src)} sentence pairs, "
                           f"{r.word_pairs} word pairs, semantic {r.semantic:.4f}")

        self._sides = sides
        mapping, self.rounds = iterate_mining(sides[0], sides[1], (val[0].cpu(), val[1].cpu()),
                                              self.settings, report)
        self.mapping = mapping.to(device)
        note = few_translations_note(next(r for r in self.rounds if r.kept), len(sides[0].tokens),
                                     len(sides[1].tokens))
        if note:
            rank_zero_info(f"note: {note}")

    def mined_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The word pairs the kept iteration's map was fitted on (its own eflomal links, kept
        rather than aligned again), to train a map on them."""
        kept = next(r for r in self.rounds if r.kept)
        return mined_word_pairs(self._sides[0], self._sides[1], kept.src, kept.tgt, kept.links)

    def mined_sentences(self) -> list[tuple[int, int]]:
        """The kept iteration's sentence pairs as 1-based line numbers of the two files (the
        data module's ``side_lines``; row + 1 where it has none), best first."""
        kept = next(r for r in self.rounds if r.kept)
        lines = getattr(self.trainer.datamodule, "side_lines", None)
        if lines is None:
            lines = tuple(list(range(1, len(side.tokens) + 1)) for side in self._sides)
        return [(lines[0][int(i)], lines[1][int(j)]) for i, j in zip(kept.src, kept.tgt)]

    def training_step(self, batch, batch_idx: int) -> None:
        return None

    def on_train_epoch_end(self) -> None:
        kept = next(r for r in self.rounds if r.kept)
        smaller = min(len(side.tokens) for side in self._sides)
        self.log_dict({"mining_iterations": float(len(self.rounds)),
                       "mined_sentences": float(len(kept.src)),
                       "mined_share": len(kept.src) / max(1, smaller),
                       "mined_word_pairs": float(kept.word_pairs)})
