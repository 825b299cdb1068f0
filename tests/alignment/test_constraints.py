import pytest
import torch

from alignment.unsupervised.constraints import CONSTRAINTS, cross_correlation, get_constraint
from alignment.errors import InputError


def _data(n=300, d=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randn(n, d, generator=g) * torch.linspace(3, 0.5, d)
    rotation, _ = torch.linalg.qr(torch.randn(d, d, generator=g))
    return y, rotation, g


@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_zero_at_the_planted_solution_and_positive_away(name):
    y, _, g = _data()
    g_fn = CONSTRAINTS[name]
    assert float(g_fn(y.clone(), y)) < 1e-8
    noisy = y + 0.5 * torch.randn(y.shape, generator=g)
    assert float(g_fn(noisy, y)) > 1e-3
    shuffled = y[torch.randperm(len(y), generator=g)]
    assert float(g_fn(shuffled, y)) > float(g_fn(noisy, y))


def test_rotation_invariance_tells_the_constraints_apart():
    """Graph and Procrustes accept any rotation of the target; cross-correlation (per
    dimension) does not."""
    y, rotation, _ = _data()
    assert float(CONSTRAINTS["graph"](y @ rotation, y)) < 1e-6
    assert float(CONSTRAINTS["procrustes"](y @ rotation, y)) < 1e-6
    assert float(cross_correlation(y @ rotation, y)) > 0.05
    # cross-correlation ignores per-dimension scale and shift (it compares correlations)
    assert float(cross_correlation(3 * y + 1, y)) < 1e-8


def test_gradient_flows_to_the_mapped_side():
    y, _, g = _data()
    for name, g_fn in CONSTRAINTS.items():
        mapped = (y + 0.3 * torch.randn(y.shape, generator=g)).requires_grad_(True)
        g_fn(mapped, y).backward()
        assert mapped.grad is not None and mapped.grad.abs().sum() > 0, name


def test_unknown_constraint_is_refused_by_name():
    with pytest.raises(InputError, match="parameter 'constraint'.*unknown constraint 'corr'"):
        get_constraint("corr")
