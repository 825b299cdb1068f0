"""Every rank of a multi-process run must train on the data rank 0 built."""
from types import SimpleNamespace

import pytest

from alignment.errors import InputError
from train.ground.distributed import check_same_on_every_rank


def _rank(rank: int, rank0_value: str, any_differs: bool):
    """What one rank sees of a 2-process run: rank 0's broadcast value and the any-reduction."""
    strategy = SimpleNamespace(broadcast=lambda value, src=0: rank0_value,
                               reduce_boolean_decision=lambda d, all=True: d or any_differs)
    return SimpleNamespace(world_size=2, global_rank=rank, strategy=strategy)


def test_ranks_with_the_same_alignment_pass():
    check_same_on_every_rank(_rank(1, "abc", any_differs=False), "abc", "word alignments")
    check_same_on_every_rank(None, "abc", "word alignments")  # outside a trainer: nothing to check


def test_a_rank_with_other_links_fails_on_every_rank_naming_both_and_the_remedy():
    with pytest.raises(InputError, match=r"rank 0: abc; rank 1: xyz.*cache_dir") as err:
        check_same_on_every_rank(_rank(1, "abc", any_differs=False), "xyz", "word alignments")
    assert err.value.parameter == "cache_dir"
    # rank 0 agrees with itself, but must stop too, or it waits for rank 1 forever
    with pytest.raises(InputError, match="rank 0: abc; another rank built others"):
        check_same_on_every_rank(_rank(0, "abc", any_differs=True), "abc", "word alignments")
