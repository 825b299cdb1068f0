"""Cosine and CSLS nearest-neighbour retrieval, chunked so the full score matrix never exists."""
from __future__ import annotations

import torch

from alignment.catalogue import check_choice


def normalize(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True).clamp_min(1e-12)


def mean_topk_cosine(queries: torch.Tensor, keys: torch.Tensor, k: int = 10,
                     chunk: int = 4096) -> torch.Tensor:
    """r(q): mean cosine of each query to its k nearest keys (inputs already unit-normalised)."""
    k = min(k, keys.shape[0])
    out = torch.empty(queries.shape[0], dtype=queries.dtype, device=queries.device)
    for start in range(0, queries.shape[0], chunk):
        sims = queries[start:start + chunk] @ keys.T
        out[start:start + chunk] = sims.topk(k, dim=1).values.mean(1)
    return out


def nearest(queries: torch.Tensor, keys: torch.Tensor, method: str = "cosine", k: int = 10,
            chunk: int = 4096, topn: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices and scores of each query's ``topn`` nearest keys by cosine or CSLS.

    CSLS(x, y) = 2 cos(x, y) − r_Y(x) − r_X(y), r = mean cosine to the k nearest neighbours in
    the other space (Conneau et al. 2018)."""
    check_choice(method, ("cosine", "csls"), "retrieval method", "method")
    q, key = normalize(queries.float()), normalize(keys.float())
    if method == "csls":
        r_q = mean_topk_cosine(q, key, k, chunk)
        r_k = mean_topk_cosine(key, q, k, chunk)
    idx = torch.empty(q.shape[0], topn, dtype=torch.long, device=q.device)
    val = torch.empty(q.shape[0], topn, dtype=q.dtype, device=q.device)
    for start in range(0, q.shape[0], chunk):
        sims = q[start:start + chunk] @ key.T
        if method == "csls":
            sims = 2 * sims - r_q[start:start + chunk, None] - r_k[None, :]
        top = sims.topk(min(topn, key.shape[0]), dim=1)
        idx[start:start + chunk], val[start:start + chunk] = top.indices, top.values
    return idx, val


def induce_pairs(queries: torch.Tensor, keys: torch.Tensor, method: str = "csls", k: int = 10,
                 mutual: bool = False, chunk: int = 4096) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Lexicon induction without labels: each query's nearest key (cosine or CSLS), or with
    ``mutual`` only the pairs that are each other's nearest neighbours. Returns query indices,
    key indices and scores, most confident first."""
    idx, val = nearest(queries, keys, method, k, chunk)
    q_idx, k_idx, score = torch.arange(queries.shape[0], device=idx.device), idx[:, 0], val[:, 0]
    if mutual:
        back, _ = nearest(keys, queries, method, k, chunk)
        keep = back[k_idx, 0] == q_idx
        q_idx, k_idx, score = q_idx[keep], k_idx[keep], score[keep]
    order = score.argsort(descending=True)
    return q_idx[order], k_idx[order], score[order]


def hits_at_1(queries: torch.Tensor, keys: torch.Tensor, gold: torch.Tensor | None = None,
              method: str = "cosine", k: int = 10) -> torch.Tensor:
    """Per query, whether its nearest key is the gold one (default: the same row index)."""
    gold = torch.arange(queries.shape[0]) if gold is None else gold
    idx, _ = nearest(queries, keys, method, k)
    return idx[:, 0].cpu() == gold.cpu()


def precision_at_1(queries: torch.Tensor, keys: torch.Tensor, gold: torch.Tensor | None = None,
                   method: str = "cosine", k: int = 10) -> float:
    """Share of queries whose nearest key is the gold one (default: the same row index)."""
    return float(hits_at_1(queries, keys, gold, method, k).float().mean())
