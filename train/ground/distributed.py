"""Multi-process runs: every rank trains on the same data (checked, not assumed), and the run
ends cleanly: the process group is destroyed before the process exits, so gloo's threads are
joined instead of aborting the process at interpreter exit ("terminate called without an active
exception"), which a loaded machine makes more likely."""
from __future__ import annotations

import pytorch_lightning as pl
from pytorch_lightning.strategies import DDPStrategy

from alignment.errors import InputError
from .cluster import peer_timeout


def check_same_on_every_rank(trainer: pl.Trainer | None, value: str | None, what: str) -> None:
    """Raise on every rank if this rank's ``value`` (a fingerprint of its data) differs from
    rank 0's: e.g. eflomal ran unseeded, or as different builds (``-march=native``), on two
    nodes that share no cache folder."""
    if trainer is None or trainer.world_size <= 1:
        return
    first = trainer.strategy.broadcast(value, src=0)
    differs = trainer.strategy.reduce_boolean_decision(first != value, all=False)
    if differs:
        mine = (f"rank {trainer.global_rank}: {value}" if value != first
                else "another rank built others")
        raise InputError(f"the ranks of this run built different {what} (rank 0: {first}; "
                         f"{mine}); unseeded or differently built eflomal samples other links, "
                         "so every rank must read one cached alignment: set cache_dir to a "
                         "folder all nodes share, or give a Pharaoh alignment file",
                         parameter="cache_dir")


def end_process_group() -> None:
    """Destroy the default process group if this process has one (a no-op otherwise)."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


class CleanDDPStrategy(DDPStrategy):
    """Lightning's DDP strategy whose teardown ends the process group, for spawned processes
    that exit right after fitting."""

    def teardown(self) -> None:
        super().teardown()
        end_process_group()



class BoundedDDPStrategy(DDPStrategy):
    """DDP whose processes wait for each other at most ``peer_timeout()`` seconds (Lightning's
    default is 30 minutes); the process group outlives the loop, for the caller's last barrier
    (``end_process_group`` ends it)."""

    def __init__(self, **kwargs) -> None:
        from datetime import timedelta

        super().__init__(timeout=timedelta(seconds=peer_timeout()), **kwargs)

