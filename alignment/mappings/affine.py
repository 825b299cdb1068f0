"""Affine mappings (x ↦ xA + b on each side), fitted in closed form from pair moments, and
their ordered composition."""
from __future__ import annotations

from typing import Any

import torch

from .moments import PairMoments
from .base import Mapping, mapping_from_config

Affine = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]


class AffineMapping(Mapping):
    """A mapping that is affine on both sides; subclasses say how to fit it from moments."""

    kind = "affine"

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        eye = torch.eye(dim, dtype=torch.float64)
        zero = torch.zeros(dim, dtype=torch.float64)
        self.register_buffer("src_weight", eye.clone())
        self.register_buffer("src_bias", zero.clone())
        self.register_buffer("tgt_weight", eye.clone())
        self.register_buffer("tgt_bias", zero.clone())

    @classmethod
    def fit(cls, moments: PairMoments, **kwargs: Any) -> "AffineMapping":
        """Closed-form fit from the sufficient statistics of the aligned pairs."""
        mapping = cls(moments.dim, **kwargs)
        mapping.set_affine(*mapping.solve(moments))
        return mapping

    def solve(self, moments: PairMoments) -> Affine:
        eye = torch.eye(moments.dim, dtype=torch.float64)
        zero = torch.zeros(moments.dim, dtype=torch.float64)
        return eye, zero, eye, zero

    def set_affine(self, a_src, b_src, a_tgt, b_tgt) -> None:
        for name, t in zip(("src_weight", "src_bias", "tgt_weight", "tgt_bias"),
                           (a_src, b_src, a_tgt, b_tgt)):
            getattr(self, name).copy_(t.to(torch.float64))

    def affine(self) -> Affine:
        return self.src_weight, self.src_bias, self.tgt_weight, self.tgt_bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x.to(torch.float64) @ self.src_weight + self.src_bias).to(x.dtype)

    def map_target(self, y: torch.Tensor) -> torch.Tensor:
        return (y.to(torch.float64) @ self.tgt_weight + self.tgt_bias).to(y.dtype)

    def applied_fingerprint(self) -> str:
        """The collapsed affine map at float32: a one-stage composition, a bare CLP and a CLP
        read from a ``.BAM`` file that apply the same matrix get the same fingerprint."""
        import hashlib

        h = hashlib.sha256(b"affine")
        for t in self.affine():
            h.update(t.to(torch.float32).to(torch.float64).numpy().tobytes())
        return h.hexdigest()[:16]

    def is_source_only(self) -> bool:
        """True when the target side is left unchanged."""
        eye = torch.eye(self.dim, dtype=torch.float64)
        return bool(torch.equal(self.tgt_weight, eye) and not self.tgt_bias.any())


class Identity(AffineMapping):
    """No change: the unmapped encoder, as a mapping."""

    kind = "identity"


class Composition(AffineMapping):
    """Stages applied in order (``center → clp``): each is fitted on the moments the previous
    stages produce, then all collapse into one affine map per side."""

    kind = "compose"

    def __init__(self, dim: int, stages: list[dict] | None = None) -> None:
        super().__init__(dim)
        self.stages = torch.nn.ModuleList(mapping_from_config(s) for s in (stages or []))

    @classmethod
    def fit_stages(cls, moments: PairMoments, stages: list[type[AffineMapping]]) -> "Composition":
        comp = cls(moments.dim)
        for stage_cls in stages:
            if not issubclass(stage_cls, AffineMapping):
                raise ValueError(f"'{stage_cls.__name__}' is not a closed-form affine mapping")
            stage = stage_cls.fit(moments)
            comp.stages.append(stage)
            moments = moments.transformed(*stage.affine())
        return comp.collapse()

    def collapse(self) -> "Composition":
        """Set the one affine map per side to its stages applied in order (after a stage
        changed)."""
        self.set_affine(*compose_affine([s.affine() for s in self.stages], self.dim))
        return self

    def config(self) -> dict[str, Any]:
        return {"dim": self.dim, "stages": [{"type": s.kind, "config": s.config()}
                                            for s in self.stages]}

    def describe(self) -> str:
        return " > ".join(s.describe() for s in self.stages) or "identity"


def compose_affine(maps: list[Affine], dim: int) -> Affine:
    """One affine map per side equal to applying ``maps`` in order."""
    a_s = torch.eye(dim, dtype=torch.float64)
    a_t = a_s.clone()
    b_s = torch.zeros(dim, dtype=torch.float64)
    b_t = b_s.clone()
    for w_s, c_s, w_t, c_t in maps:
        a_s, b_s = a_s @ w_s, b_s @ w_s + c_s
        a_t, b_t = a_t @ w_t, b_t @ w_t + c_t
    return a_s, b_s, a_t, b_t
