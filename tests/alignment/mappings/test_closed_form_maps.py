import pytest
import torch

from alignment.errors import InputError
from alignment.mappings import (CLP, UMD, Center, Composition, Norm, fit_composition, load_mapping,
                                parse_method, procrustes)
from alignment.mappings.moments import PairMoments


def _orthogonal(d: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    return q


def test_procrustes_recovers_a_planted_orthogonal_map():
    torch.manual_seed(0)
    x = torch.randn(1000, 32, dtype=torch.float64)
    q = _orthogonal(32, 1)
    w = CLP.fit(PairMoments.of(x, x @ q)).weight
    assert torch.allclose(w, q, atol=1e-5)
    assert torch.allclose(w.T @ w, torch.eye(32, dtype=torch.float64), atol=1e-10)


def test_procrustes_on_noisy_pairs_beats_identity_and_is_orthogonal():
    torch.manual_seed(0)
    x = torch.randn(500, 16, dtype=torch.float64)
    y = x @ _orthogonal(16, 2) + 0.1 * torch.randn(500, 16, dtype=torch.float64)
    w = procrustes(x.T @ y)
    assert (x @ w - y).norm() < 0.3 * (x - y).norm()


def test_umd_removes_a_planted_direction_from_both_sides():
    torch.manual_seed(0)
    d = 16
    v = torch.zeros(d, dtype=torch.float64)
    v[3] = 1.0
    base = torch.randn(800, d, dtype=torch.float64)
    x = base + 5.0 * v + 0.01 * torch.randn(800, d, dtype=torch.float64)
    y = base - 5.0 * v
    umd = UMD.fit(PairMoments.of(x, y))
    assert torch.allclose(umd.direction.abs(), v, atol=1e-3)
    assert umd(x)[:, 3].abs().max() < 1e-2 and umd.map_target(y)[:, 3].abs().max() < 1e-2
    assert not umd.is_source_only()


def test_center_and_norm_standardise_each_language():
    torch.manual_seed(0)
    x = 3 + 2 * torch.randn(400, 4, dtype=torch.float64)
    y = -1 + 0.5 * torch.randn(400, 4, dtype=torch.float64)
    m = PairMoments.of(x, y)
    c = Center.fit(m)
    assert c(x).mean(0).abs().max() < 1e-10 and c.map_target(y).mean(0).abs().max() < 1e-10
    n = Norm.fit(m)
    assert torch.allclose(n(x).std(0, unbiased=False), torch.ones(4, dtype=torch.float64), atol=1e-6)
    assert torch.allclose(n.map_target(y).std(0, unbiased=False), torch.ones(4, dtype=torch.float64),
                          atol=1e-6)


def test_composition_equals_fitting_stages_one_after_another():
    torch.manual_seed(0)
    x = torch.randn(300, 8, dtype=torch.float64) + 2
    y = x @ _orthogonal(8, 3) - 1 + 0.05 * torch.randn(300, 8, dtype=torch.float64)
    comp = fit_composition(PairMoments.of(x, y), "center > clp")
    center = Center.fit(PairMoments.of(x, y))
    xc, yc = center(x), center.map_target(y)
    clp = CLP.fit(PairMoments.of(xc, yc))
    assert torch.allclose(comp(x), clp(xc), atol=1e-9)
    assert torch.allclose(comp.map_target(y), yc, atol=1e-9)
    assert comp.describe() == "center > clp"


def test_stage_names_are_validated():
    assert parse_method("umd → clp").stages == ("umd", "clp") == parse_method(["umd", "clp"]).stages
    with pytest.raises(InputError, match="unknown method 'procrustez'"):
        parse_method("center > procrustez")


def test_save_load_round_trip_for_every_closed_form_map(tmp_path):
    torch.manual_seed(0)
    x, y = torch.randn(100, 6, dtype=torch.float64), torch.randn(100, 6, dtype=torch.float64)
    m = PairMoments.of(x, y)
    for spec in ("clp", "umd", "center", "norm", "umd > clp", "center > clp", "clp > umd"):
        mapping = fit_composition(m, spec)
        mapping.save(tmp_path / spec)
        again = load_mapping(tmp_path / spec, dim=6)
        assert isinstance(again, Composition)
        assert torch.equal(again(x), mapping(x)) and torch.equal(again.map_target(y), mapping.map_target(y))
        assert again.fingerprint() == mapping.fingerprint()


def test_loading_refuses_a_dimension_mismatch(tmp_path):
    fit_composition(PairMoments.of(torch.randn(20, 6), torch.randn(20, 6)), "clp").save(tmp_path)
    with pytest.raises(InputError, match="dimension 6 but the encoder has 384"):
        load_mapping(tmp_path, dim=384)
