"""Iterated pseudo-parallel mining: mine sentence pairs from two unpaired corpora, align the
mined pairs' words, fit a closed-form map on the aligned words, and mine again through that
map — keeping the iteration the label-free semantic criterion prefers. No label is used."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from alignment.encoding.pipeline import word_alignment
from alignment.data.vectors import WordVectors, aligned_pairs
from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.evaluation.criteria import semantic_criterion
from alignment.mappings import Mapping, MethodSpec, fit_composition, parse_method
from alignment.mappings.moments import PairMoments

from .mining import mine_pairs


@dataclass(frozen=True)
class SentenceSide:
    """One language of an unpaired corpus: its sentences' token vectors and word tokens."""

    vectors: WordVectors
    tokens: list[list[str]]

    def __post_init__(self) -> None:
        if len(self.vectors) != len(self.tokens):
            raise ValueError(f"{len(self.vectors)} encoded sentences but {len(self.tokens)} "
                             "tokenised ones")


MINING_CRITERIA = ("semantic", "mined")  # what a round of mining is selected by
FEW_TRANSLATIONS = 0.5  # mined share of the smaller pool below which few translations are there


@dataclass
class MiningSettings:
    """``rounds``: at most this many mine → align → fit iterations (stopping at the first that
    does not raise the criterion); ``threshold``: the ratio margin a mined pair needs;
    ``k``: the margin's neighbours; ``fit``: the closed-form composition fitted on the mined
    words; ``min_sentences``: fewer mined pairs than this end the loop; ``criterion``: what
    must rise for the loop to go on and which iteration is kept — ``semantic`` (the criterion
    on the validation pools after the fit) or ``mined`` (how many sentence pairs were mutual
    best above the threshold: more, when the map that mined them was better). Both are
    label-free; ``mined`` is the default because it kept iterating where ``semantic`` stopped
    too early (docs/unsupervised.md)."""

    rounds: int = 5
    threshold: float = 1.05
    k: int = 4
    fit: str = "center > clp"
    min_sentences: int = 10
    semantic_top: float = 1000
    semantic_mutual: bool = False
    criterion: str = "mined"
    fit_spec: MethodSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_choice(self.criterion, MINING_CRITERIA, "mining criterion", "criterion")
        if self.rounds < 1:
            raise InputError(f"must be >= 1, got {self.rounds}", parameter="rounds")
        if self.k < 1:
            raise InputError(f"must be >= 1, got {self.k}", parameter="k")
        self.fit_spec = parse_method(self.fit, "fit")  # parsed once, fitted every round
        if self.fit_spec.trained is not None:
            raise InputError(f"'{self.fit}': the map fitted on mined words must be closed-form "
                             "(train a trained map on the mined pairs afterwards)", parameter="fit")


@dataclass
class MiningRound:
    """What one iteration mined (row indices into the two sides, best first) and how good the
    map fitted on it is by the label-free criterion."""

    iteration: int
    src: np.ndarray
    tgt: np.ndarray
    word_pairs: int
    semantic: float
    kept: bool = field(default=False)
    links: list = field(default_factory=list, repr=False)  # eflomal's, per mined pair

    def score(self, criterion: str) -> float:
        return self.semantic if criterion == "semantic" else float(len(self.src))


def _mapped_means(side: SentenceSide, mapping: Mapping | None, target: bool) -> torch.Tensor:
    vectors = torch.from_numpy(side.vectors.vectors)
    if mapping is not None:
        with torch.no_grad():
            vectors = mapping.map_target(vectors) if target else mapping(vectors)
    return torch.from_numpy(side.vectors.sentence_means(vectors.numpy()))


def align_mined(src: SentenceSide, tgt: SentenceSide, src_rows: np.ndarray,
                tgt_rows: np.ndarray) -> list:
    """eflomal's word links inside the mined sentence pairs (row indices of the two sides)."""
    return word_alignment([src.tokens[int(i)] for i in src_rows],
                          [tgt.tokens[int(j)] for j in tgt_rows])


def mined_word_pairs(src: SentenceSide, tgt: SentenceSide, src_rows: np.ndarray,
                     tgt_rows: np.ndarray, links: list) -> tuple[np.ndarray, np.ndarray]:
    """The word vectors ``links`` align inside the mined sentence pairs: the training pairs of
    the map fitted after mining."""
    xs, ys, _ = aligned_pairs(src.vectors.subset([int(i) for i in src_rows]),
                              tgt.vectors.subset([int(j) for j in tgt_rows]), links)
    return xs, ys


def iterate_mining(src: SentenceSide, tgt: SentenceSide, val: tuple[torch.Tensor, torch.Tensor],
                   settings: MiningSettings | None = None,
                   progress: Callable[[MiningRound], None] | None = None,
                   ) -> tuple[Mapping, list[MiningRound]]:
    """The map of the best iteration by ``settings.criterion`` (``semantic``: on the unpaired
    validation pools ``val``), and every iteration's record. The first iteration mines with
    the unmapped vectors (centred inside the margin), each later one through the previous
    iteration's map; the loop ends when the criterion stops rising."""
    settings = settings or MiningSettings()
    mapping: Mapping | None = None
    best: tuple[float, Mapping | None, MiningRound | None] = (-float("inf"), None, None)
    rounds: list[MiningRound] = []
    for it in range(1, settings.rounds + 1):
        mined = mine_pairs(_mapped_means(src, mapping, False), _mapped_means(tgt, mapping, True),
                           k=settings.k, threshold=settings.threshold)
        if len(mined) < settings.min_sentences:
            break
        rows = mined.src.numpy(), mined.tgt.numpy()
        links = align_mined(src, tgt, *rows)
        xs, ys = mined_word_pairs(src, tgt, *rows, links)
        mapping = fit_composition(PairMoments.of(torch.from_numpy(xs), torch.from_numpy(ys)),
                                  settings.fit_spec)
        with torch.no_grad():
            score = semantic_criterion(mapping(val[0]), mapping.map_target(val[1]),
                                       settings.semantic_top, mutual=settings.semantic_mutual)
        record = MiningRound(it, *rows, len(xs), float(score), links=links)
        rounds.append(record)
        if progress is not None:
            progress(record)
        if record.score(settings.criterion) <= best[0]:
            break
        best = (record.score(settings.criterion), mapping, record)
    if best[2] is None:
        raise InputError(f"mining found fewer than {settings.min_sentences} sentence pairs: "
                         "lower the threshold", parameter="threshold")
    best[2].kept = True  # one round: a later round that only ties it was not taken
    return best[1], rounds


def few_translations_note(kept: MiningRound, n_src: int, n_tgt: int) -> str | None:
    """A note when the kept iteration mined under ``FEW_TRANSLATIONS`` of the smaller pool: the
    pools then likely hold few translations of each other, and a map fitted on pairs that are
    not translations can make the metric worse (WMT17 news: disjoint pools mined 30-41% and
    hurt every pair but two; the same text shuffled mined 87-100%)."""
    share = len(kept.src) / max(1, min(n_src, n_tgt))
    if share >= FEW_TRANSLATIONS:
        return None
    return (f"mining kept {len(kept.src)} sentence pairs, {share:.0%} of the smaller pool: the "
            "pools may hold few translations of each other, and a map fitted on pairs that are "
            "not translations can make the metric worse (docs/human_judgments.md); check the "
            "map against the unmapped encoder before using it")


MINED_PAIRS = "mined_pairs.tsv"  # a mining run's kept sentence pairs, in its run folder
MINED_HEADER = "src_line\ttgt_line"


def write_mined_pairs(path: str | Path, pairs: list[tuple[int, int]]) -> None:
    """The kept iteration's sentence pairs as 1-based line numbers of the two files, best
    first: what a sentence map (``train --sentence-map-kind``) is then fitted on."""
    from alignment.atomic import write_text

    write_text(path, "\n".join([MINED_HEADER, *(f"{i}\t{j}" for i, j in pairs)]) + "\n")


def read_mined_pairs(path: str | Path, n_src: int, n_tgt: int) -> list[tuple[int, int]]:
    """``write_mined_pairs``' file, checked against files of ``n_src`` and ``n_tgt`` lines
    (a bad line is named with its number before anything is fitted)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != MINED_HEADER:
        raise InputError(f"not a mined-pairs file (its first line must be "
                         f"'{MINED_HEADER.expandtabs(1)}')", path=path, line=1)
    pairs = []
    for number, text in enumerate(lines[1:], start=2):
        fields = text.split("\t")
        if len(fields) != 2 or not all(f.isdigit() for f in fields):
            raise InputError("expected two line numbers separated by a tab", path=path,
                             line=number)
        i, j = int(fields[0]), int(fields[1])
        if not (1 <= i <= n_src and 1 <= j <= n_tgt):
            raise InputError(f"line numbers {i}, {j} outside the files ({n_src} and {n_tgt} "
                             "lines)", path=path, line=number)
        pairs.append((i, j))
    return pairs
