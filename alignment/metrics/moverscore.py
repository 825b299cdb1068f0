"""MoverScore (Zhao et al. 2019): Word Mover's Distance between a reference's and an output's
contextual token vectors, idf-weighted. Both public versions, to their arithmetic:

* v1 (``moverscore.py``): the last 5 layers, each token unit-normalised per layer, then [min;
  mean; max] over the layers; n-grams of the kept tokens (idf-weighted means); squared Euclidean
  cost; masses normalised with +1e-5; score 1 − EMD, where the two masses' small difference in
  total is charged at the largest cost (pyemd's EMD-hat).
* v2 (``moverscore_v2.py``): the last layer; unigrams (its ``n_gram`` is unused); Euclidean cost
  in float32; score 1 / (1 + Σ flow · cost)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from alignment.errors import InputError
from alignment.signature import MetricSignature
from .pairing import encode_pairs, other_side, side_weights
from .preprocessing import Preprocessing, preset
from .result import MetricResult
from .states import LayerStates

VERSIONS = ("v1", "v2")
V1_LAYERS = 5


def balanced_flow(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """The optimal flow moving min(Σa, Σb) between ``a`` and ``b`` (the surplus of the larger
    side left where it is, as pyemd's EMD-hat does through a bin at one constant cost)."""
    import ot

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    sa, sb = a.sum(), b.sum()
    if sa <= 0 or sb <= 0:
        return np.zeros((len(a), len(b)))
    if sa < sb:
        flow = ot.emd(np.append(a, sb - sa), b, np.vstack([cost, np.zeros(len(b))]),
                      numItermax=10_000_000)[:-1]
    elif sb < sa:
        flow = ot.emd(a, np.append(b, sa - sb), np.hstack([cost, np.zeros((len(a), 1))]),
                      numItermax=10_000_000)[:, :-1]
    else:
        flow = ot.emd(a, b, np.ascontiguousarray(cost, np.float64), numItermax=10_000_000)
    return flow


def emd_hat(a: np.ndarray, b: np.ndarray, cost: np.ndarray, penalty: float) -> float:
    """Σ flow · cost of ``balanced_flow`` plus |Σa − Σb| · ``penalty`` (pyemd's ``emd`` with
    its default penalty, the largest cost of its matrix)."""
    flow = balanced_flow(a, b, cost)
    return float((flow * cost).sum() + abs(a.sum() - b.sum()) * penalty)


def v1_vectors(states: np.ndarray) -> torch.Tensor:
    """(T, 3d): each layer's token vectors unit-normalised, then [min; mean; max] over them."""
    x = torch.from_numpy(np.array(states, np.float32))
    x = x / torch.norm(x, dim=-1, keepdim=True)
    return torch.cat([x.min(0).values, x.mean(0), x.max(0).values], -1)


def ngrams_v1(vectors: torch.Tensor, idf: torch.Tensor, kept: list[int], n: int
              ) -> tuple[torch.Tensor, list[float]]:
    """Windows of ``n`` consecutive kept tokens (all of them where fewer): each one's vector
    the idf-weighted sum (weights over their sum + 1e-5), its mass the idf sum."""
    kept_ids = np.asarray(kept)
    w = min(n, len(kept_ids)) if len(kept_ids) - n + 1 <= 0 else n
    windows = np.lib.stride_tricks.sliding_window_view(kept_ids, w)
    out, mass = [], []
    for win in windows:
        idx = torch.from_numpy(win.copy())
        weights = idf[idx]
        mass.append(weights.sum().item())
        out.append(((weights / (weights.sum(0) + 0.00001)).unsqueeze(-1) * vectors[idx]).sum(0))
    return torch.stack(out, 0), mass


def score_v1(ref: np.ndarray, ref_idf: list[float], ref_keep: list[bool], hyp: np.ndarray,
             hyp_idf: list[float], hyp_keep: list[bool], ngram: int = 1) -> float:
    """One pair's v1 score from (layers, T, d) vectors, token weights and kept tokens."""
    sides = []
    for states, idf, keep in ((ref, ref_idf, ref_keep), (hyp, hyp_idf, hyp_keep)):
        kept = [k for k, flag in enumerate(keep) if flag]
        sides.append(ngrams_v1(v1_vectors(states), torch.tensor(idf, dtype=torch.float32),
                               kept, ngram))
    (rv, rm), (hv, hm) = sides
    raw = torch.cat([rv, hv], 0)
    raw = raw / (torch.norm(raw, dim=-1, keepdim=True) + 0.000001)
    sq = (raw ** 2).sum(1)
    dist = torch.clamp(sq.view(-1, 1) + sq.view(1, -1) - 2.0 * torch.mm(raw, raw.T), 0.0,
                       np.inf).double().numpy()
    m = len(rm)
    c1 = np.asarray(rm, np.float64)
    c2 = np.asarray(hm, np.float64)
    c1, c2 = c1 / (c1.sum() + 0.00001), c2 / (c2.sum() + 0.00001)
    return 1.0 - emd_hat(c1, c2, dist[:m, m:], float(dist.max()))


def score_v2(ref: np.ndarray, ref_idf: list[float], ref_keep: list[bool], hyp: np.ndarray,
             hyp_idf: list[float], hyp_keep: list[bool]) -> float:
    """One pair's v2 score from (1, T, d) last-layer vectors, token weights and kept tokens."""
    x = torch.from_numpy(ref[-1][np.flatnonzero(ref_keep)])
    y = torch.from_numpy(hyp[-1][np.flatnonzero(hyp_keep)])
    x = x / (torch.norm(x, dim=-1, keepdim=True) + 1e-30)
    y = y / (torch.norm(y, dim=-1, keepdim=True) + 1e-30)
    xn, yn = x.pow(2).sum(-1, keepdim=True), y.pow(2).sum(-1, keepdim=True)
    dist = torch.baddbmm(yn.T[None], x[None], y.T[None], alpha=-2)[0].add_(xn) \
        .clamp_min_(1e-30).sqrt_().double().numpy()
    a = np.asarray(ref_idf, np.float32).astype(np.float64)[np.flatnonzero(ref_keep)]
    b = np.asarray(hyp_idf, np.float32).astype(np.float64)[np.flatnonzero(hyp_keep)]
    a, b = a / (a.sum() + 1e-30), b / (b.sum() + 1e-30)
    flow = balanced_flow(a, b, dist).astype(np.float32)
    return 1.0 / (1.0 + float(np.sum(flow * dist)))


class MoverScore:
    """MoverScore ``version`` (v1, v2) over ``encoder``: an HF encoder (name or path), read at
    the version's layers (v1: the last 5; v2: the last; ``layers`` overrides), or a crossalign
    export (its one layer, its map on the source side). ``preprocessing``: a ``Preprocessing``
    or a preset's name (default: the version's published one); ``ngram``: v1's n-gram size."""

    def __init__(self, encoder: str | Path, version: str = "v2", ngram: int = 1,
                 layers: list[int] | None = None,
                 preprocessing: Preprocessing | str | None = None, batch_size: int = 64,
                 device: str | None = None, bucket: bool = True) -> None:
        if version not in VERSIONS:
            raise InputError(f"must be v1 or v2, got {version!r}", parameter="version")
        if ngram < 1 or (version == "v2" and ngram != 1):
            raise InputError("v1 takes an n-gram size >= 1; v2 reads unigrams only",
                             parameter="ngram")
        self.version, self.ngram = version, ngram
        self.prep = preset(f"moverscore-{version}") if preprocessing is None else \
            preset(preprocessing) if isinstance(preprocessing, str) else preprocessing
        default = list(range(-V1_LAYERS, 0)) if version == "v1" else [-1]
        self.states = LayerStates(encoder, layers or default, batch_size, device, bucket)

    def signature(self, form: str) -> str:
        return str(MetricSignature("moverscore", self.version, self.states.signature_fields(form),
                                   f"ngram={self.ngram}" if self.version == "v1" else None,
                                   self.prep.describe(), form))

    def score(self, hypotheses: list[str], references: list[str] | None = None,
              sources: list[str] | None = None) -> MetricResult:
        """One score a pair (higher: closer), against the references or, reference-free, the
        sources."""
        other, form = other_side(hypotheses, references, sources)
        o_enc, h_enc = encode_pairs(self.states, self.prep, hypotheses, other, form)
        o_w, h_w = side_weights(self.prep, o_enc, h_enc)
        sp = self.states.sentencepiece
        scores = []
        for o, ow, h, hw in zip(o_enc, o_w, h_enc, h_w):
            ok, hk = self.prep.keep(o.tokens, o.special, sp), self.prep.keep(h.tokens, h.special, sp)
            scores.append(score_v1(o.states, ow, ok, h.states, hw, hk, self.ngram)
                          if self.version == "v1" else score_v2(o.states, ow, ok, h.states, hw, hk))
        return MetricResult(np.asarray(scores, np.float64), self.signature(form))
