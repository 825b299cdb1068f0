"""Subword-to-word pooling on the device, differentiable (used for encoding and fine-tuning)."""
from __future__ import annotations

import torch

from alignment.catalogue import check_choice

POOLINGS = ("first", "mean", "last")


def pool_subwords(flat_states: torch.Tensor, pos: torch.Tensor, word: torch.Tensor, total: int,
                  pooling: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Word vectors (total, d) from subword states: ``flat_states[pos[k]]`` belongs to word
    ``word[k]``; returns the pooled vectors and each word's subword count (0: no subword, a
    zero row the caller must mask)."""
    d = flat_states.shape[-1]
    counts = torch.zeros(total, device=flat_states.device).index_add_(
        0, word, torch.ones(len(pos), device=flat_states.device))
    if pooling == "mean":
        pooled = torch.zeros(total, d, device=flat_states.device, dtype=flat_states.dtype)
        pooled = pooled.index_add(0, word, flat_states[pos])
        return pooled / counts.clamp_min(1)[:, None].to(pooled.dtype), counts
    check_choice(pooling, POOLINGS, "subword pooling", "pooling")
    # first: the smallest position of each word; last: the largest
    key = pos if pooling == "last" else -pos
    best = torch.full((total,), -(2 ** 62), dtype=torch.long, device=flat_states.device)
    best = best.scatter_reduce(0, word, key, reduce="amax")
    chosen = best if pooling == "last" else -best
    return flat_states[chosen.clamp(0, flat_states.shape[0] - 1)], counts
