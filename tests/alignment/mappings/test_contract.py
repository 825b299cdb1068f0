"""The contract every registered method's mapping keeps (run over the whole registry, so a new
method is checked without writing a test for it): shapes (..., d), dtypes, save/load round
trip with the same fingerprint, map_target, is_source_only, determinism."""
import numpy as np
import pytest
import torch

from alignment.mappings import METHODS, Mapping, fit_composition, load_mapping
from alignment.mappings.moments import PairMoments, PairStatistics

DIM = 6


def _pairs(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(300, DIM, generator=g, dtype=torch.float64) + 1
    y = x @ torch.linalg.qr(torch.randn(DIM, DIM, generator=g, dtype=torch.float64))[0] - 2
    return x, y + 0.1 * torch.randn(300, DIM, generator=g, dtype=torch.float64)


def build(name: str) -> Mapping:
    """A fitted closed-form map, or a freshly initialised (seeded) trained one."""
    x, y = _pairs()
    method = METHODS[name]
    if not method.trained:
        return fit_composition(PairMoments.of(x, y), name)
    torch.manual_seed(0)
    mapping = method.mapping(DIM)
    if hasattr(mapping, "standardise_with"):
        mapping.standardise_with(PairStatistics.of(x.float(), y.float()))
    return mapping.eval()


@pytest.fixture(params=sorted(METHODS), ids=str)
def mapping(request) -> Mapping:
    return build(request.param)


def test_shapes_are_leading_dims_times_d(mapping):
    x = torch.randn(2, 3, DIM)
    with torch.no_grad():
        assert mapping(x).shape == (2, 3, DIM) and mapping.map_target(x).shape == (2, 3, DIM)
        assert mapping(x[0, 0]).shape == (DIM,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_map_array_keeps_the_input_dtype_and_is_finite(mapping, dtype):
    v = np.random.default_rng(0).normal(size=(5, DIM)).astype(dtype)
    for side in ("src", "tgt"):
        out = mapping.map_array(v, side)
        assert out.dtype == dtype and out.shape == v.shape and np.isfinite(out).all()


def test_save_load_round_trip(mapping, tmp_path):
    mapping.save(tmp_path / "m")
    again = load_mapping(tmp_path / "m", dim=DIM)
    assert type(again) is type(mapping) and again.fingerprint() == mapping.fingerprint()
    assert again.describe() == mapping.describe()
    x = torch.randn(7, DIM)
    with torch.no_grad():
        assert torch.equal(again(x), mapping(x))
        assert torch.equal(again.map_target(x), mapping.map_target(x))


def test_source_only_maps_leave_the_target_alone(mapping):
    y = torch.randn(4, DIM)
    with torch.no_grad():
        same = torch.allclose(mapping.map_target(y), y)
    assert same or not mapping.is_source_only()


def test_deterministic(mapping):
    name = mapping.describe()
    x = torch.randn(9, DIM)
    with torch.no_grad():
        assert torch.equal(mapping(x), mapping(x))
    if name in METHODS:  # built again from the same data and seed: the same map
        assert build(name).fingerprint() == mapping.fingerprint()
