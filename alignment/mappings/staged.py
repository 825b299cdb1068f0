"""A trained mapping on top of closed-form stages (``center > clp > realnvp``): the stages are
fitted exactly first, the trained map learns what they leave."""
from __future__ import annotations

from typing import Any

import torch

from .affine import Composition
from .base import Mapping, mapping_from_config


class StagedMapping(Mapping):
    """``last(pre(x))`` for the source side; the target side gets ``pre``'s target transform
    (and ``last``'s, the identity for the trained maps we have). One saved folder, one
    ``describe()`` name, one fingerprint over both parts."""

    kind = "staged"

    def __init__(self, dim: int, pre: dict | None = None, last: dict | None = None) -> None:
        super().__init__(dim)
        self.pre = mapping_from_config(pre) if pre else Composition(dim)
        self.last = mapping_from_config(last) if last else None

    @classmethod
    def of(cls, pre: Composition, last: Mapping) -> "StagedMapping":
        staged = cls(pre.dim)
        staged.pre, staged.last = pre, last
        return staged

    def config(self) -> dict[str, Any]:
        return {"dim": self.dim,
                "pre": {"type": self.pre.kind, "config": self.pre.config()},
                "last": {"type": self.last.kind, "config": self.last.config()}}

    def describe(self) -> str:
        return f"{self.pre.describe()} > {self.last.describe()}"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.last(self.pre(x))

    def map_target(self, y: torch.Tensor) -> torch.Tensor:
        return self.last.map_target(self.pre.map_target(y))

    def is_source_only(self) -> bool:
        return self.pre.is_source_only() and self.last.is_source_only()

    def map_array(self, vectors, side: str = "src"):
        """Each part in its own precision (the affine stages in float64, the trained map in
        its parameters' dtype)."""
        return self.last.map_array(self.pre.map_array(vectors, side), side)


def trainable_part(mapping: Mapping) -> Mapping:
    """The part of ``mapping`` a trainer updates: the last stage of a staged mapping, else the
    mapping itself."""
    return mapping.last if isinstance(mapping, StagedMapping) else mapping


def through_pre_stages(mapping: Mapping, x: torch.Tensor, y: torch.Tensor
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """Source rows through the closed-form stages' source side and target rows through their
    target side: what the trainable part of ``mapping`` learns on (unchanged without stages)."""
    if isinstance(mapping, StagedMapping):
        return mapping.pre(x), mapping.pre.map_target(y)
    return x, y
