"""BaryScore (Colombo et al. 2021): each sentence's last layers as discrete measures over its
tokens (unit-normalised, idf-weighted), their Wasserstein barycenter (free support, as many
points as tokens, uniform), and the Wasserstein distance W between the two barycenters
(squared Euclidean cost, uniform masses); Sinkhorn divergences SD_reg beside it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from alignment.signature import MetricSignature
from .pairing import encode_pairs, other_side, side_weights
from .preprocessing import Preprocessing, preset
from .result import MetricResult
from .states import LayerStates

LAST_LAYERS = 5
SINKHORN_REGS = (10, 1, 5, 0.1, 0.5, 0.01, 0.001)  # the public code's (1 listed twice there)


def barycenter(layers: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """The free-support Wasserstein barycenter of one measure a layer (``layers``: (L, T, d),
    each the same tokens; ``weights``: their masses, uniform where None): T points of mass 1/T
    from the origin, at most 1,000 iterations (POT's ``free_support_barycenter``). From the
    origin every plan ties, so the optimum reached depends on the masses' last bit."""
    import ot

    n_layers, t, d = layers.shape
    if weights is None:
        mass = np.array([1.0 / t] * t)
    else:  # normalised twice with Python's sum, as the public code does (the last bit counts)
        w = [float(x) for x in weights]
        mass = np.array([x / sum(w) for x in w], dtype=np.float64)
        mass = mass / sum(mass)
    return ot.lp.free_support_barycenter([np.asarray(x, np.float64) for x in layers],
                                         [mass] * n_layers, np.zeros((t, d)),
                                         b=np.full(t, 1.0 / t), numItermax=1000, verbose=False)


def baryscore_values(ref: np.ndarray, ref_w: np.ndarray | None, hyp: np.ndarray,
                     hyp_w: np.ndarray | None, sinkhorn: tuple = ()) -> dict[str, float]:
    """W (and ``SD_reg`` for each reg in ``sinkhorn``) between the barycenters of two
    sentences' (L, T, d) unit-normalised token vectors."""
    import ot

    a, b = barycenter(ref, ref_w), barycenter(hyp, hyp_w)
    cost = ot.dist(a, b)
    ua, ub = np.full(len(a), 1.0 / len(a)), np.full(len(b), 1.0 / len(b))
    out = {"W": float(ot.emd2(ua, ub, cost))}
    for reg in sinkhorn:
        out[f"SD_{reg}"] = float(np.asarray(ot.bregman.sinkhorn2(ua, ub, cost, reg=reg,
                                                                 numItermax=10000)).ravel()[0])
    return out


def unit(states: np.ndarray) -> np.ndarray:
    """Each token vector of each layer divided by its norm, in float32 by torch as the public
    code does: the barycenter's fixed-point iteration starts from a tie (every point at the
    origin), so which local optimum it reaches can turn on the last bit of its input."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(states))
    return x.div(torch.norm(x, dim=-1).unsqueeze(-1)).numpy()


class BaryScore:
    """BaryScore over ``encoder`` (HF name or path: its last ``last_layers`` hidden states; a
    crossalign export: its one layer, its map on the source side). ``preprocessing``: a
    ``Preprocessing`` or preset name (default ``baryscore``: every token, each weighing the
    default idf log(N + 1), as the public code computes); ``sinkhorn``: regularisations whose SD to report beside W. The score is −W
    (higher: closer); ``values`` holds W and each SD."""

    def __init__(self, encoder: str | Path, last_layers: int = LAST_LAYERS,
                 preprocessing: Preprocessing | str | None = None, sinkhorn: tuple = (),
                 batch_size: int = 64, device: str | None = None, bucket: bool = True) -> None:
        from alignment.errors import InputError

        if last_layers < 1:
            raise InputError(f"must be >= 1, got {last_layers}", parameter="last-layers")
        self.prep = preset("baryscore") if preprocessing is None else \
            preset(preprocessing) if isinstance(preprocessing, str) else preprocessing
        self.sinkhorn = tuple(sinkhorn)
        self.states = LayerStates(encoder, list(range(-last_layers, 0)), batch_size, device, bucket,
                                  parameter="last-layers")

    def signature(self, form: str) -> str:
        regs = ",".join(f"SD_{r}" for r in self.sinkhorn)
        return str(MetricSignature("baryscore", "W", self.states.signature_fields(form),
                                   regs or None, self.prep.describe(), form))

    def score(self, hypotheses: list[str], references: list[str] | None = None,
              sources: list[str] | None = None) -> MetricResult:
        other, form = other_side(hypotheses, references, sources)
        o_enc, h_enc = encode_pairs(self.states, self.prep, hypotheses, other, form)
        o_w, h_w = side_weights(self.prep, o_enc, h_enc)
        sp, rows = self.states.sentencepiece, []
        for o, ow, h, hw in zip(o_enc, o_w, h_enc, h_w):
            ok = np.flatnonzero(self.prep.keep(o.tokens, o.special, sp))
            hk = np.flatnonzero(self.prep.keep(h.tokens, h.special, sp))
            weigh = self.prep.idf != "none"
            rows.append(baryscore_values(
                unit(o.states[:, ok]).astype(np.float64),
                np.asarray(ow, np.float64)[ok] if weigh else None,
                unit(h.states[:, hk]).astype(np.float64),
                np.asarray(hw, np.float64)[hk] if weigh else None, self.sinkhorn))
        values = {k: np.array([r[k] for r in rows]) for k in rows[0]} if rows else {"W": np.array([])}
        return MetricResult(-values["W"], self.signature(form), values)
