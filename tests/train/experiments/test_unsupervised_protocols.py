"""The unpaired protocols by name: the paper's pairs-permuted pools hold every row's partner
on the other side, permuted; old names are read; unknown ones are refused."""
from types import SimpleNamespace

import numpy as np
import pytest

from alignment.errors import InputError
from train.experiments import unsupervised_comparison as unsupervised
from train.experiments.testbed import protocol_name


def test_pairs_permuted_pools_are_the_aligned_pairs_with_the_target_side_permuted(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 3)).astype(np.float32)
    y = x + 10.0  # y[i] is x[i]'s partner
    dev_x = rng.normal(size=(80, 3)).astype(np.float32)
    monkeypatch.setattr(unsupervised, "aligned_pairs", lambda *a: (dev_x, dev_x + 10.0, None))
    bed = SimpleNamespace(x=x, y=y, dev=SimpleNamespace(src=None, tgt=None, alignments=None))
    pools = unsupervised.permuted_pairs(bed, pool_tokens=200, val_tokens=50, seed=0)
    assert pools.x.shape == (200, 3) and pools.val_x.shape == (50, 3)
    # every pooled source row's partner is in the target pool ...
    partners = {tuple(np.round(r, 4)) for r in pools.y}
    assert all(tuple(np.round(r + 10.0, 4)) in partners for r in pools.x)
    # ... but rows are not paired (the permutation moved almost every one)
    assert np.mean(np.all(np.isclose(pools.y, pools.x + 10.0), axis=1)) < 0.05
    again = unsupervised.permuted_pairs(bed, 200, 50, seed=0)
    assert np.array_equal(again.y, pools.y)  # seeded
    # the judge knows each target row's partner: matching rows by value finds it exactly
    by_value = {tuple(np.round(r, 4)): j for j, r in enumerate(pools.y)}
    q = np.arange(len(pools.x))
    k = np.array([by_value[tuple(np.round(r + 10.0, 4))] for r in pools.x])
    assert pools.judge(q, k) == 1.0 and pools.judge(q, (k + 1) % len(k)) < 0.05


def test_protocol_names():
    from alignment.catalogue import FormerNameWarning

    with pytest.warns(FormerNameWarning, match="'shuffled' is now 'comparable'"):
        assert protocol_name("shuffled") == "comparable"  # 0.3's name
    assert protocol_name("pairs-permuted") == "pairs-permuted"
    with pytest.raises(InputError, match="protocol"):
        protocol_name("paired")
