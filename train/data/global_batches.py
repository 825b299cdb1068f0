"""Global batches for data-parallel fine-tuning: N processes together see exactly the batches
one process sees, in an order fixed by the seed and the epoch, resumable mid-epoch."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Sampler


class GlobalBatchSampler(Sampler[list[tuple[int, int]]]):
    """Global batches of ``batch_size`` sentence pairs, bucketed by length and shuffled by
    ``seed`` + epoch; rank r of ``world`` takes items r, r + world, … of each global batch, so
    N processes together see exactly the batches one process sees. Items are (index, global
    batch size); a global batch smaller than ``world`` is dropped."""

    def __init__(self, lengths: list[int], batch_size: int, seed: int, shuffle: bool = True,
                 rank: int = 0, world: int = 1, bucket: int = 50) -> None:
        self.lengths, self.batch_size, self.seed = lengths, batch_size, seed
        self.shuffle, self.rank, self.world, self.bucket = shuffle, rank, world, bucket
        self.epoch = 0
        self._resume: tuple[int, int] | None = None  # (epoch, batches already done)

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def resume_at(self, epoch: int, done: int) -> None:
        """The next pass over ``epoch`` starts after its first ``done`` batches (a run resumed
        from a checkpoint written mid-epoch continues where it stopped)."""
        self._resume = (epoch, done)

    def global_batches(self) -> list[list[int]]:
        n = len(self.lengths)
        if not self.shuffle:
            order = list(range(n))
            return [order[s:s + self.batch_size] for s in range(0, n, self.batch_size)]
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        order = torch.randperm(n, generator=g).tolist()
        batches = []
        chunk = self.batch_size * self.bucket
        for s in range(0, n, chunk):  # sort within chunks: little padding, still random
            part = sorted(order[s:s + chunk], key=lambda i: self.lengths[i])
            batches += [part[k:k + self.batch_size] for k in range(0, len(part), self.batch_size)]
        perm = torch.randperm(len(batches), generator=g).tolist()
        return [batches[k] for k in perm]

    def __iter__(self):
        # every pass over the resumed epoch skips (Lightning may start its iterator twice)
        skip = self._resume[1] if self._resume and self._resume[0] == self.epoch else 0
        kept = (b for b in self.global_batches() if len(b) >= self.world)
        for k, batch in enumerate(kept):
            if k >= skip:
                yield [(i, len(batch)) for i in batch[self.rank::self.world]]

    def __len__(self) -> int:
        return sum(len(b) >= self.world for b in self.global_batches())


class EpochLoader(DataLoader):
    """A DataLoader over a ``GlobalBatchSampler`` that sets the sampler's epoch each pass."""

    def __init__(self, *args, epoch=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._epoch = epoch  # () -> the current epoch

    def __iter__(self):
        # Lightning sets the epoch on samplers, not on batch samplers: each epoch's order
        # is the batch sampler's for that epoch only if it is set here
        if self._epoch is not None:
            self.batch_sampler.set_epoch(int(self._epoch()))
        return super().__iter__()

    # The position in the epoch is checkpointed by the data module (Lightning may build this
    # loader before a checkpoint is restored, and then never hands it the loader state); these
    # two say to Lightning that the loader resumes.
    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state: dict) -> None:
        return None
