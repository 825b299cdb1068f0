"""Streaming first and second moments of paired vectors: the sufficient statistics of every
affine closed-form fit (centring, NORM, Procrustes, UMD and their compositions)."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class PairMoments:
    """n, Σx, Σy, ΣxᵀX, ΣyᵀY, ΣxᵀY over paired rows, accumulated in float64."""

    n: torch.Tensor
    sx: torch.Tensor
    sy: torch.Tensor
    sxx: torch.Tensor
    syy: torch.Tensor
    sxy: torch.Tensor

    @classmethod
    def zeros(cls, dim: int, device: torch.device | str = "cpu") -> "PairMoments":
        z = lambda *s: torch.zeros(*s, dtype=torch.float64, device=device)  # noqa: E731
        return cls(z(()), z(dim), z(dim), z(dim, dim), z(dim, dim), z(dim, dim))

    @classmethod
    def of(cls, x: torch.Tensor, y: torch.Tensor) -> "PairMoments":
        m = cls.zeros(x.shape[-1], x.device)
        m.update(x, y)
        return m

    @property
    def dim(self) -> int:
        return int(self.sx.shape[0])

    def update(self, x: torch.Tensor, y: torch.Tensor, weight: torch.Tensor | None = None) -> None:
        """Add a batch of paired rows (n, d); ``weight`` (n,) of 0/1 masks padding rows."""
        if x.shape != y.shape or x.ndim != 2 or x.shape[1] != self.dim:
            raise ValueError(f"paired batches must both be (n, {self.dim}); got {tuple(x.shape)} "
                             f"and {tuple(y.shape)}")
        x, y = x.to(torch.float64), y.to(torch.float64)
        if weight is None:
            self.n += x.shape[0]
            xw, yw = x, y
        else:
            w = weight.to(torch.float64)
            self.n += w.sum()
            xw, yw = x * w[:, None], y * w[:, None]
        self.sx += xw.sum(0)
        self.sy += yw.sum(0)
        self.sxx += xw.T @ x
        self.syy += yw.T @ y
        self.sxy += xw.T @ y

    def flat(self) -> torch.Tensor:
        """All statistics in one vector (for a single all-reduce across devices)."""
        return torch.cat([t.reshape(-1) for t in (self.n.reshape(1), self.sx, self.sy,
                                                   self.sxx, self.syy, self.sxy)])

    @classmethod
    def from_flat(cls, flat: torch.Tensor, dim: int) -> "PairMoments":
        d2 = dim * dim
        parts = torch.split(flat, [1, dim, dim, d2, d2, d2])
        return cls(parts[0].reshape(()), parts[1], parts[2], parts[3].reshape(dim, dim),
                   parts[4].reshape(dim, dim), parts[5].reshape(dim, dim))

    def mean_x(self) -> torch.Tensor:
        return self.sx / self.n

    def mean_y(self) -> torch.Tensor:
        return self.sy / self.n

    def var_x(self) -> torch.Tensor:
        return torch.diagonal(self.sxx) / self.n - self.mean_x() ** 2

    def var_y(self) -> torch.Tensor:
        return torch.diagonal(self.syy) / self.n - self.mean_y() ** 2

    def difference_scatter(self) -> torch.Tensor:
        """(X − Y)ᵀ(X − Y)."""
        return self.sxx + self.syy - self.sxy - self.sxy.T

    def transformed(self, a_src: torch.Tensor, b_src: torch.Tensor, a_tgt: torch.Tensor,
                    b_tgt: torch.Tensor) -> "PairMoments":
        """The moments of (x A_src + b_src, y A_tgt + b_tgt), computed exactly from these."""
        a_s, b_s, a_t, b_t = (t.to(torch.float64) for t in (a_src, b_src, a_tgt, b_tgt))
        n = self.n

        def second(s_uv, s_u, s_v, a_u, b_u, a_v, b_v):
            return (a_u.T @ s_uv @ a_v + torch.outer(a_u.T @ s_u, b_v) + torch.outer(b_u, a_v.T @ s_v)
                    + n * torch.outer(b_u, b_v))

        return PairMoments(
            n.clone(), self.sx @ a_s + n * b_s, self.sy @ a_t + n * b_t,
            second(self.sxx, self.sx, self.sx, a_s, b_s, a_s, b_s),
            second(self.syy, self.sy, self.sy, a_t, b_t, a_t, b_t),
            second(self.sxy, self.sx, self.sy, a_s, b_s, a_t, b_t))


@dataclass(frozen=True)
class PairStatistics:
    """Per-dimension mean and standard deviation of each side of the training pairs: what a
    trained mapping needs to know about its data before its first step."""

    mean_x: torch.Tensor
    std_x: torch.Tensor
    mean_y: torch.Tensor
    std_y: torch.Tensor

    @property
    def dim(self) -> int:
        return int(self.mean_x.shape[0])

    @classmethod
    def of(cls, x: torch.Tensor, y: torch.Tensor) -> "PairStatistics":
        return cls(x.mean(0), x.std(0), y.mean(0), y.std(0))

    @classmethod
    def from_moments(cls, m: PairMoments, dtype: torch.dtype = torch.float32) -> "PairStatistics":
        """The same statistics from pair moments (standard deviations unbiased, as ``of``)."""
        n = float(m.n)
        scale = n / max(n - 1.0, 1.0)
        return cls(*(t.to(dtype) for t in (m.mean_x(), (m.var_x().clamp_min(0) * scale).sqrt(),
                                           m.mean_y(), (m.var_y().clamp_min(0) * scale).sqrt())))
