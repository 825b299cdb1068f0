"""Pseudo-parallel mining (Artetxe & Schwenk 2019's ratio margin, as UScore uses it): from two
unpaired corpora, the sentence pairs most likely to be translations of each other."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from alignment.evaluation.csls import mean_topk_cosine, normalize


@dataclass
class MinedPairs:
    """Source and target row indices of the mined pairs, with their margin scores, best first."""

    src: torch.Tensor
    tgt: torch.Tensor
    score: torch.Tensor

    def __len__(self) -> int:
        return len(self.src)


def margin_scores(src: torch.Tensor, tgt: torch.Tensor, k: int = 4, chunk: int = 4096
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each source row's best target by the ratio margin
    cos(x, y) / (Σ_{z∈NN_k(x)} cos(x, z)/2k + Σ_{z∈NN_k(y)} cos(y, z)/2k), and each target's
    best source, neighbours taken in the other language. Returns (best target per source,
    its score, best source per target, its score)."""
    a, b = normalize(src.float()), normalize(tgt.float())
    r_a = mean_topk_cosine(a, b, k, chunk) / 2
    r_b = mean_topk_cosine(b, a, k, chunk) / 2
    fwd_idx = torch.empty(len(a), dtype=torch.long)
    fwd_val = torch.empty(len(a))
    bwd_val = torch.full((len(b),), -float("inf"))
    bwd_idx = torch.zeros(len(b), dtype=torch.long)
    for s in range(0, len(a), chunk):
        margin = (a[s:s + chunk] @ b.T) / (r_a[s:s + chunk, None] + r_b[None, :])
        best = margin.max(1)
        fwd_idx[s:s + chunk], fwd_val[s:s + chunk] = best.indices, best.values
        col = margin.max(0)
        better = col.values > bwd_val
        bwd_val[better] = col.values[better]
        bwd_idx[better] = col.indices[better] + s
    return fwd_idx, fwd_val, bwd_idx, bwd_val


def mine_pairs(src: torch.Tensor, tgt: torch.Tensor, k: int = 4, threshold: float = 1.0,
               top: int | None = None, center: bool = True) -> MinedPairs:
    """Pairs that are each other's best by ratio margin and score at least ``threshold``,
    best first (``top``: at most that many). ``center``: subtract each side's mean first, so
    the margin compares content rather than the language's own direction."""
    if center:
        src, tgt = src - src.mean(0), tgt - tgt.mean(0)
    fwd_idx, fwd_val, bwd_idx, _ = margin_scores(src, tgt, k)
    rows = torch.arange(len(src))
    keep = (bwd_idx[fwd_idx] == rows) & (fwd_val >= threshold)
    s, t, score = rows[keep], fwd_idx[keep], fwd_val[keep]
    order = score.argsort(descending=True)
    if top is not None:
        order = order[:top]
    return MinedPairs(s[order], t[order], score[order])
