"""Cost matrices of many transport problems at once, in padded float64 batches on a device, so
the per-pair CPU work left for the transport workers is the solve itself."""
from __future__ import annotations

import numpy as np
import torch

from alignment.data.batching import make_batches
from .transport import SQ_DIST_NOISE
from .versions import Version, get_version


def batched_costs(version: str | Version, src: list[np.ndarray], hyp: list[np.ndarray],
                  device: str | torch.device = "cpu", batch_size: int = 128) -> list[np.ndarray]:
    """Per pair, the m × k matrix ``cost_2020`` or ``cost_2022`` gives, equal to it up to
    float64 rounding; batches group problems of similar size."""
    squared = get_version(version).squared
    sizes = [(len(s), len(h)) for s, h in zip(src, hyp)]
    out: list = [None] * len(src)
    device = torch.device(device)
    for batch in make_batches([m + k for m, k in sizes], batch_size, bucket=True):
        x = _padded([src[i] for i in batch], device)
        y = _padded([hyp[i] for i in batch], device)
        cost = _sq_dist(x, y)
        if not squared:
            cost = cost.masked_fill(cost < SQ_DIST_NOISE, 0.0).sqrt()
        host = cost.cpu().numpy()
        for row, i in enumerate(batch):
            m, k = sizes[i]
            out[i] = np.ascontiguousarray(host[row, :m, :k])
    return out


def _padded(arrays: list[np.ndarray], device: torch.device) -> torch.Tensor:
    """(B, longest, d) float64, rows unit-normalised, zero padding."""
    longest = max(len(a) for a in arrays)
    buf = np.zeros((len(arrays), longest, arrays[0].shape[1]), dtype=np.float64)
    for row, a in enumerate(arrays):
        buf[row, :len(a)] = a
    t = torch.from_numpy(buf).to(device)
    return t / t.norm(dim=-1, keepdim=True).clamp_min(1e-12)


def _sq_dist(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    d = (x * x).sum(-1)[:, :, None] + (y * y).sum(-1)[:, None, :] - 2.0 * x @ y.transpose(1, 2)
    return d.clamp_min(0.0)
