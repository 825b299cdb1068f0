"""Length-bucketed batching: similar lengths share a batch so little compute goes to padding."""
from __future__ import annotations


def make_batches(lengths: list[int], batch_size: int, bucket: bool = True,
                 max_tokens: int | None = None) -> list[list[int]]:
    """Index batches over sequences of the given lengths.

    ``bucket=False`` keeps corpus order with fixed-size batches. ``bucket=True`` sorts by
    length (longest first, so an out-of-memory shows at once) and cuts batches of at most
    ``batch_size`` sequences and, if given, ``max_tokens`` padded tokens.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)) if bucket \
        else list(range(len(lengths)))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        grown = max(longest, lengths[i])
        if current and (len(current) >= batch_size or
                        (max_tokens is not None and grown * (len(current) + 1) > max_tokens)):
            batches.append(current)
            current, grown = [], lengths[i]
        current.append(i)
        longest = grown
    if current:
        batches.append(current)
    return batches
