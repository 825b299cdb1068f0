"""Joint-Align (Cao et al. 2020; Zhao et al. 2021): the data and the loss for fine-tuning an
encoder so that aligned words match while the pivot language stays close to the original
model. No Lightning here: ``train.modules.JointAlign`` drives it."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .pooling import pool_subwords
from .subwords import bare_marker_ids, content_word_ids
from alignment.data.word_align import Links


@dataclass(frozen=True)
class WordPairExample:
    """One sentence pair, tokenised for the encoder: subword ids (special tokens included),
    the word each subword belongs to (-1: special), the word counts and the aligned word links
    (only links whose words survived truncation)."""

    src_ids: list[int]
    tgt_ids: list[int]
    src_words: list[int]
    tgt_words: list[int]
    n_src: int
    n_tgt: int
    links: Links


def tokenize_pair(tokenizer, src_tokens: list[str], tgt_tokens: list[str], links: Links,
                  max_length: int) -> WordPairExample:
    """A ``WordPairExample`` from word tokens and their links (a fast HF tokenizer)."""
    sides = []
    for words in (src_tokens, tgt_tokens):
        enc = tokenizer(words, is_split_into_words=True, truncation=True, max_length=max_length)
        word_ids = content_word_ids(enc["input_ids"], enc.word_ids(), bare_marker_ids(tokenizer))
        sides.append((list(enc["input_ids"]), [-1 if w is None else w for w in word_ids]))
    (s_ids, s_words), (t_ids, t_words) = sides
    s_kept, t_kept = set(s_words) - {-1}, set(t_words) - {-1}
    kept = [(i, j) for i, j in links if i in s_kept and j in t_kept]
    return WordPairExample(s_ids, t_ids, s_words, t_words, len(src_tokens), len(tgt_tokens), kept)


@dataclass
class SideBatch:
    """One side of a padded batch: model inputs plus the pooling index (flat subword position
    → word row) and, per subword, whether it is a real (non-special, non-pad) token."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    pos: torch.Tensor
    word: torch.Tensor
    n_words: int
    real_tokens: torch.Tensor

    def to(self, device: torch.device) -> "SideBatch":
        return SideBatch(self.input_ids.to(device), self.attention_mask.to(device),
                         self.pos.to(device), self.word.to(device), self.n_words,
                         self.real_tokens.to(device))

    def model_inputs(self) -> dict[str, torch.Tensor]:
        return {"input_ids": self.input_ids, "attention_mask": self.attention_mask}


@dataclass
class PairBatch:
    """A batch of sentence pairs: both sides and the aligned word rows (src row, tgt row)."""

    src: SideBatch
    tgt: SideBatch
    links: torch.Tensor  # (n_links, 2), rows into the pooled words of each side
    n_sentences: int

    def to(self, device: torch.device) -> "PairBatch":
        return PairBatch(self.src.to(device), self.tgt.to(device), self.links.to(device),
                         self.n_sentences)


def _side(ids: list[list[int]], words: list[list[int]], n_words: list[int], pad_id: int
          ) -> tuple[SideBatch, list[int]]:
    seq = max(len(x) for x in ids)
    input_ids = torch.full((len(ids), seq), pad_id, dtype=torch.long)
    mask = torch.zeros((len(ids), seq), dtype=torch.long)
    real = torch.zeros((len(ids), seq), dtype=torch.bool)
    pos, word, offsets, start = [], [], [], 0
    for k, (row, w) in enumerate(zip(ids, words)):
        input_ids[k, :len(row)] = torch.tensor(row)
        mask[k, :len(row)] = 1
        offsets.append(start)
        for t, wi in enumerate(w):
            if wi >= 0:
                real[k, t] = True
                pos.append(k * seq + t)
                word.append(start + wi)
        start += n_words[k]
    return SideBatch(input_ids, mask, torch.tensor(pos, dtype=torch.long),
                     torch.tensor(word, dtype=torch.long), start, real), offsets


def collate_pairs(examples: list[WordPairExample], pad_id: int) -> PairBatch:
    """Pad a list of examples into one ``PairBatch``."""
    src, s_off = _side([e.src_ids for e in examples], [e.src_words for e in examples],
                       [e.n_src for e in examples], pad_id)
    tgt, t_off = _side([e.tgt_ids for e in examples], [e.tgt_words for e in examples],
                       [e.n_tgt for e in examples], pad_id)
    links = [(s_off[k] + i, t_off[k] + j) for k, e in enumerate(examples) for i, j in e.links]
    return PairBatch(src, tgt, torch.tensor(links, dtype=torch.long).reshape(-1, 2),
                     len(examples))


def side_states(model, side: SideBatch, layer: int) -> torch.Tensor:
    """Hidden states (batch, seq, d) of one side at ``layer`` (0 = embeddings)."""
    out = model(**side.model_inputs(), output_hidden_states=True)
    return out.hidden_states[layer]


def pooled_words(states: torch.Tensor, side: SideBatch, pooling: str) -> torch.Tensor:
    """Word vectors (n_words, d) of one side, differentiable."""
    flat = states.reshape(-1, states.shape[-1])
    pooled, _ = pool_subwords(flat, side.pos, side.word, side.n_words, pooling)
    return pooled


@dataclass
class JointAlignLoss:
    """The loss terms of one batch, each summed and divided by ``per`` sentences (a constant
    of the *global* batch, so data-parallel gradient averaging equals one process)."""

    align: torch.Tensor
    regulariser: torch.Tensor
    total: torch.Tensor
    n_links: int


def joint_align_loss(src_words: torch.Tensor, tgt_words: torch.Tensor, links: torch.Tensor,
                     tgt_states: torch.Tensor, tgt_original: torch.Tensor,
                     real_tokens: torch.Tensor, reg_weight: float, per: float) -> JointAlignLoss:
    """Σ_links ‖f(src word) − f(tgt word)‖² + reg_weight · Σ_pivot tokens ‖f(t) − f₀(t)‖²,
    both divided by ``per``."""
    diff = _at_least_fp32(src_words[links[:, 0]]) - _at_least_fp32(tgt_words[links[:, 1]])
    align = diff.pow(2).sum() / per
    drift = (_at_least_fp32(tgt_states) - _at_least_fp32(tgt_original))[real_tokens]
    reg = drift.pow(2).sum() / per
    return JointAlignLoss(align, reg, align + reg_weight * reg, int(len(links)))


def _at_least_fp32(t: torch.Tensor) -> torch.Tensor:
    """Half-precision states summed in float32; float64 ones (a 64-bit run) stay float64."""
    return t if t.dtype == torch.float64 else t.float()
