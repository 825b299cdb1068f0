"""Ending a multi-process run cleanly: the process group is destroyed before the process exits,
so gloo's threads are joined instead of aborting the process at interpreter exit ("terminate
called without an active exception"), which a loaded machine makes more likely."""
from __future__ import annotations

from pytorch_lightning.strategies import DDPStrategy


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

