"""Length-bucketed batching: similar lengths share a batch so little compute goes to padding."""
from __future__ import annotations


def make_batches(lengths: list[int], batch_size: int, bucket: bool = True) -> list[list[int]]:
    """Index batches over sequences of the given lengths.

    ``bucket=False`` keeps corpus order with fixed-size batches. ``bucket=True`` sorts by
    length (longest first, so an out-of-memory shows at once) and cuts batches of at most
    ``batch_size`` sequences.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)) if bucket \
        else list(range(len(lengths)))
    return [order[s:s + batch_size] for s in range(0, len(order), batch_size)]
