"""Trained maps on top of closed-form stages (center > clp > realnvp): fitted in order, saved
as one mapping, and — warm-started — equal to the linear map before the first step."""
import numpy as np
import pytest
import torch

from alignment.mappings import StagedMapping, fit_composition, load_mapping
from alignment.mappings.moments import PairMoments
from train.data.paired import PairedVectorDataModule
from train.fitting.in_process import fit_arrays
from train.ground.trainer import quiet_trainer
from train.fitting.plan import build_fitter


def _pairs(n=400, d=6, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, d)) * 2 + 3).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    y = (np.tanh(x @ q / 3) * 3 - 1).astype(np.float32)
    return x, y


@pytest.mark.parametrize("method, settings", [
    ("center > clp > realnvp", {"warm_start": True, "transforms": 2, "hidden": 16}),
    ("center > clp > fcnn", {"residual": True, "hidden": 16}),
])
def test_a_warm_started_map_equals_its_linear_stages_before_the_first_step(method, settings):
    x, y = _pairs()
    dm = PairedVectorDataModule.from_arrays(x, y, val=(x[:50], y[:50]), batch_size=64)
    module = build_fitter(method, **settings)
    quiet_trainer(max_epochs=0).fit(module, datamodule=dm)  # builds the model, takes no step
    linear = fit_composition(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)), "center > clp")
    t = torch.from_numpy(x[:50])
    with torch.no_grad():
        got, want = module.mapping(t), linear(t)
    assert isinstance(module.mapping, StagedMapping)
    assert torch.allclose(got, want, atol=1e-4 * float(want.abs().max()))
    assert module.mapping.describe() == method


@pytest.mark.parametrize("method, settings", [
    ("center > realnvp", {"transforms": 2, "hidden": 16, "lr": 5e-3}),
    ("norm > fcnn", {"hidden": 16, "lr": 5e-3}),
    ("center > clp > fcnn", {"hidden": 16, "residual": True, "lr": 5e-3}),
])
def test_staged_fit_saves_one_mapping_that_reloads_and_maps_the_target_side(tmp_path, method, settings):
    x, y = _pairs()
    torch.manual_seed(0)
    mapping = fit_arrays(x, y, method, tmp_path / "run", batch_size=64, epochs=3, **settings)
    again = load_mapping(tmp_path / "run" / "mapping")
    assert again.describe() == method and again.fingerprint() == mapping.fingerprint()
    t, u = torch.from_numpy(x[:20]), torch.from_numpy(y[:20])
    with torch.no_grad():
        assert torch.equal(again(t), mapping(t))
        pre = fit_composition(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)),
                              method.rsplit(" > ", 1)[0])
        # the target side gets the closed-form stages' target transform (centring moves it)
        assert torch.allclose(again.map_target(u), pre.map_target(u), atol=1e-5)
    assert not mapping.is_source_only()


def test_the_trained_stage_learns_on_the_transformed_pairs(tmp_path):
    """After training, the staged map is closer to the targets than its linear stages alone."""
    x, y = _pairs(n=800)
    torch.manual_seed(0)
    mapping = fit_arrays(x, y, "center > clp > fcnn", batch_size=64, epochs=15, hidden=32,
                         residual=True, lr=3e-3)
    t, u = torch.from_numpy(x), torch.from_numpy(y)
    with torch.no_grad():
        err = lambda f: float(((f(t) - mapping.map_target(u)) ** 2).sum(1).mean())  # noqa: E731
        assert err(mapping) < 0.7 * err(mapping.pre)


@pytest.mark.parametrize("method, settings", [("realnvp", {"transforms": 2, "hidden": 8}),
                                              ("fcnn", {"hidden": 8})])
def test_padding_rows_of_a_distributed_shard_add_nothing_to_the_loss(method, settings):
    """DDP pads each rank's shard with weight-0 rows; the trained losses honour the weights."""
    from train.data.paired import shard_with_padding

    x, y = _pairs(n=101)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    shard = shard_with_padding(tx, ty, world=2, rank=1)  # 50 real rows + 1 padding row
    xs, ys, w = shard.tensors
    assert len(xs) == 51 and float(w.sum()) == 50
    torch.manual_seed(0)
    module = build_fitter(method, dim=6, **settings)
    with torch.no_grad():
        padded = module.loss(xs, ys, w)["loss"]
        real = module.loss(tx[1::2], ty[1::2])["loss"]
    assert torch.allclose(padded, real, rtol=1e-5)
