import numpy as np
import pytest
import torch

from alignment.errors import InputError
from alignment.mappings import LinearMap, RealNVPMapping, StagedMapping
from tests.conftest import planted_rotation
from train.fitting import fit_arrays
from train.modules import GanRealNVPFit, build_fitter


MUSE_TOY = "muse:critic_hidden=256,critic_dropout=0"


def test_muse_lands_near_a_planted_rotation_and_refinement_makes_it_exact():
    """Adversarial training alone gets close (it is noisy by nature); Procrustes refinement on
    CSLS-induced pairs (bootstrapping a linear map) then finds the rotation exactly."""
    from train.bootstrap import BootstrapConfig, bootstrap

    x, y, rotation = planted_rotation(4000)
    torch.manual_seed(0)
    mapping = fit_arrays(x, y, MUSE_TOY, epochs=30, batch_size=128)
    assert isinstance(mapping, LinearMap)
    w = mapping.weight.detach().numpy()
    unmapped = np.abs(x - x @ rotation).mean()
    assert np.abs(x @ w - x @ rotation).mean() < 0.25 * unmapped
    singular = np.linalg.svd(w, compute_uv=False)  # kept near orthogonal by MUSE's update
    assert singular.min() > 0.8 and singular.max() < 1.2, singular
    refined, rounds = bootstrap(mapping, x, y, (x[:500], y[:500]), BootstrapConfig(rounds=3, top=2000))
    assert np.abs(refined.weight.detach().numpy() - rotation).max() < 1e-3
    assert rounds[-1].semantic > rounds[0].semantic


def test_adversarial_fit_is_deterministic_for_a_seed():
    x, y, _ = planted_rotation(n=1000)
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        runs.append(fit_arrays(x, y, MUSE_TOY, epochs=2, batch_size=128).weight.detach().clone())
    assert torch.equal(*runs)


def test_gan_realnvp_trains_its_flow_against_a_wasserstein_critic():
    x, y, _ = planted_rotation(n=2000)
    torch.manual_seed(0)
    module = build_fitter("center > gan_realnvp", critic_hidden=64, hidden=32, transforms=2,
                          lr=1e-3, critic_lr=1e-3, critic_steps=2)
    from train.datamodule import PairedVectorDataModule
    from train.fitting import quiet_trainer

    dm = PairedVectorDataModule.from_arrays(x, y, batch_size=200, shuffle=True)
    trainer = quiet_trainer(max_epochs=3)
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(does not have many workers|LeafSpec|val_dataloader).*")
        trainer.fit(module, datamodule=dm)
    mapping = module.mapping
    assert isinstance(mapping, StagedMapping) and isinstance(mapping.last, RealNVPMapping)
    logged = trainer.callback_metrics
    for key in ("train_critic_loss", "train_gradient_penalty", "train_map_adversarial", "train_nll"):
        assert torch.isfinite(logged[key]), key
    # the flow moved away from its identity start, and the map stays invertible
    with torch.no_grad():
        before = mapping.pre(torch.from_numpy(x[:50]))
        after = mapping.last(before)
        assert float((after - before).abs().max()) > 1e-3
        assert torch.allclose(mapping.last.inverse(after), before, atol=1e-3)


@pytest.mark.parametrize("method", ["clp > gan_realnvp", "center > umd > muse"])
def test_stages_that_need_pairs_are_refused_before_unsupervised_methods(method):
    with pytest.raises(InputError, match="needs translation pairs"):
        build_fitter(method)


@pytest.mark.parametrize("setting,value", [("objective", "lsgan"), ("critic_steps", 0),
                                           ("lipschitz", "clip"), ("label_smoothing", 0.7)])
def test_bad_adversarial_settings_are_refused_by_name(setting, value):
    with pytest.raises(InputError, match=f"parameter '{setting}'"):
        GanRealNVPFit("gan_realnvp", **{setting: value})


def test_the_map_steps_every_critic_steps_updates_across_epoch_boundaries():
    """400 rows in batches of 64 are 7 batches an epoch; with critic_steps 5 and 10 epochs the
    map takes 70 // 5 = 14 steps (a per-epoch count would give 10: one an epoch)."""
    from train.datamodule import PairedVectorDataModule
    from train.fitting import quiet_trainer

    x, y, _ = planted_rotation(n=400)
    module = build_fitter(MUSE_TOY, critic_steps=5)
    dm = PairedVectorDataModule.from_arrays(x, y, batch_size=64, shuffle=True)
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(does not have many workers|val_dataloader).*")
        quiet_trainer(max_epochs=10).fit(module, datamodule=dm)
    opt_map, opt_critic = module.optimizers()
    steps = lambda opt: int(next(iter(opt.optimizer.state.values()))["step"])  # noqa: E731
    assert steps(opt_critic) == 70 and steps(opt_map) == 14
    assert module.map_updates == 14


def test_a_map_step_budget_stops_training_there_whatever_the_epochs():
    from train.fitting import fit_module
    from train.unpaired_datamodule import UnpairedVectorDataModule

    x, y, _ = planted_rotation(n=400)
    dm = UnpairedVectorDataModule.from_arrays(x, y, batch_size=64, shuffle=True)
    module = fit_module(f"{MUSE_TOY},map_steps=9,critic_steps=5", dm, epochs=1000)
    assert module.map_updates == 9
    assert module.trainer.current_epoch < 10  # 45 critic updates: 7 epochs, not 1000
    with pytest.raises(InputError, match="parameter 'map_steps'"):
        GanRealNVPFit("gan_realnvp", map_steps=0)
