import numpy as np
import pytest
import torch

from alignment.errors import InputError
from alignment.mappings import LinearMap, LinearStage, RealNVPMapping, StagedMapping, load_mapping
from tests.conftest import planted_rotation
from train.data.unpaired import UnpairedVectorDataModule
from train.fitting.in_process import fit_method
from train.fitting.plan import build_fitter
from train.unsupervised import GanRealNVPFit


MUSE_TOY = "muse:critic_hidden=256,critic_dropout=0"


def fit_pools(x, y, method: str, epochs: int):
    """An unsupervised method on two pools in memory (unpaired data, as the plan demands)."""
    return fit_method(method, UnpairedVectorDataModule.from_arrays(x, y, batch_size=128), epochs)


def test_muse_lands_near_a_planted_rotation_and_refinement_makes_it_exact():
    """Adversarial training alone gets close (it is noisy by nature); Procrustes refinement on
    CSLS-induced pairs (self-training a linear map) then finds the rotation exactly."""
    from train.unsupervised.self_training import SelfTrainingConfig, self_train

    x, y, rotation = planted_rotation(4000)
    torch.manual_seed(0)
    mapping = fit_pools(x, y, MUSE_TOY, epochs=30)
    assert isinstance(mapping, LinearMap)
    w = mapping.weight.detach().numpy()
    unmapped = np.abs(x - x @ rotation).mean()
    assert np.abs(x @ w - x @ rotation).mean() < 0.25 * unmapped
    singular = np.linalg.svd(w, compute_uv=False)  # kept near orthogonal by MUSE's update
    assert singular.min() > 0.8 and singular.max() < 1.2, singular
    refined, rounds = self_train(mapping, x, y, (x[:500], y[:500]), SelfTrainingConfig(rounds=3, top=2000))
    assert np.abs(refined.weight.detach().numpy() - rotation).max() < 1e-3
    assert rounds[-1].semantic > rounds[0].semantic


def test_adversarial_fit_is_deterministic_for_a_seed():
    x, y, _ = planted_rotation(n=1000)
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        runs.append(fit_pools(x, y, MUSE_TOY, epochs=2).weight.detach().clone())
    assert torch.equal(*runs)


@pytest.mark.parametrize("settings,logged", [
    ({}, ()),  # the defaults: spectrally normalised critic, no density term
    ({"nll_weight": 0.1}, ("train_nll",)),
    ({"lipschitz": "penalty", "nll_weight": 0.1}, ("train_gradient_penalty", "train_nll"))])
def test_gan_realnvp_trains_its_flow_against_a_wasserstein_critic(settings, logged):
    x, y, _ = planted_rotation(n=2000)
    torch.manual_seed(0)
    module = build_fitter("center > gan_realnvp", critic_hidden=64, hidden=32, transforms=2,
                          lr=1e-3, critic_lr=1e-3, critic_steps=2, **settings)
    from train.data.paired import PairedVectorDataModule
    from train.ground.trainer import quiet_trainer

    dm = PairedVectorDataModule.from_arrays(x, y, batch_size=200, shuffle=True)
    trainer = quiet_trainer(max_epochs=3)
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(does not have many workers|LeafSpec|val_dataloader).*")
        trainer.fit(module, datamodule=dm)
    mapping = module.mapping
    assert isinstance(mapping, StagedMapping) and isinstance(mapping.last, RealNVPMapping)
    for key in ("train_critic_loss", "train_map_adversarial", *logged):
        assert torch.isfinite(trainer.callback_metrics[key]), key
    for key in {"train_gradient_penalty", "train_nll"} - set(logged):
        assert key not in trainer.callback_metrics, key
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
    from train.data.paired import PairedVectorDataModule
    from train.ground.trainer import quiet_trainer

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
    from train.fitting.in_process import fit_module
    from train.data.unpaired import UnpairedVectorDataModule

    x, y, _ = planted_rotation(n=400)
    dm = UnpairedVectorDataModule.from_arrays(x, y, batch_size=64, shuffle=True)
    module = fit_module(f"{MUSE_TOY},map_steps=9,critic_steps=5", dm, epochs=1000)
    assert module.map_updates == 9
    assert module.trainer.current_epoch < 10  # 45 critic updates: 7 epochs, not 1000
    with pytest.raises(InputError, match="parameter 'map_steps'"):
        GanRealNVPFit("gan_realnvp", map_steps=0)


LINEAR_START = ("center > gan_realnvp:linear_steps=400,map_steps=420,critic_steps=2,"
                "critic_hidden=64,hidden=32,transforms=2,lr=0.001,critic_lr=0.001")


def test_a_linear_start_trains_a_linear_map_then_the_flow_on_top_of_it(tmp_path):
    """The first linear_steps map updates move an orthogonal W toward the planted rotation
    (the flow is still the identity), the rest train the flow; W is then a stage of the saved
    map, consistent in whichever epoch the selection restores, and a saved folder rebuilds
    it exactly."""
    from train.callbacks import KeepBest
    from train.fitting.in_process import fit_module
    from train.data.unpaired import UnpairedVectorDataModule

    x, y, rotation = planted_rotation(4000)
    torch.manual_seed(0)
    dm = UnpairedVectorDataModule.from_arrays(x, y, val=(x[:500], y[:500]), batch_size=128,
                                              shuffle=True)
    module = fit_module(LINEAR_START, dm, epochs=1000, callbacks=[KeepBest("semantic")])
    assert module.map_updates == 420
    mapping = module.mapping
    assert mapping.describe() == "center > linear_start > realnvp"
    center, stage = mapping.pre.stages
    assert isinstance(stage, LinearStage)
    w = module.linear.weight.detach().double()
    assert torch.allclose(stage.src_weight, w)
    # the collapsed pre-stage is center then W, whichever epoch the selection kept
    assert torch.allclose(mapping.pre.src_weight, center.src_weight @ stage.src_weight)
    xc = x - x.mean(0)
    unmapped = np.abs(xc - xc @ rotation).mean()
    assert np.abs(xc @ w.numpy() - xc @ rotation).mean() < 0.85 * unmapped
    singular = np.linalg.svd(w.numpy(), compute_uv=False)
    assert singular.min() > 0.7 and singular.max() < 1.3, singular
    steps = lambda opt: int(next(iter(opt.optimizer.state.values()))["step"])  # noqa: E731
    flow_opt, _, linear_opt = module.optimizers()
    assert steps(linear_opt) == 400 and steps(flow_opt) == 20
    mapping.save(tmp_path)
    loaded = load_mapping(tmp_path)
    assert loaded.describe() == mapping.describe()
    assert torch.equal(loaded(torch.from_numpy(x[:50])), mapping(torch.from_numpy(x[:50])))


def test_a_linear_start_leaves_constant_dimensions_alone():
    from train.fitting.in_process import fit_module
    from train.data.unpaired import UnpairedVectorDataModule

    x, y, _ = planted_rotation(1000)
    x[:, 3] = 2.0
    y[:, 3] = -1.0
    dm = UnpairedVectorDataModule.from_arrays(x, y, batch_size=128, shuffle=True)
    module = fit_module(LINEAR_START.replace("400,map_steps=420", "20,map_steps=25"), dm, 1000)
    assert module.trainable.passive == [3]
    w = module.linear.weight.detach()
    assert torch.equal(w[3], torch.eye(8)[3]) and torch.equal(w[:, 3], torch.eye(8)[3])
    assert not torch.equal(w, torch.eye(8))


@pytest.mark.parametrize("settings,why", [
    ({"linear_steps": 10, "map_steps": 10}, "leave none"),
    ({"linear_steps": -1}, ">= 0"),
    ({"linear_steps": 5, "warm_start": False}, "warm_start"),
    ({"orthogonalise": -0.1}, ">= 0")])
def test_bad_linear_start_settings_are_refused_by_name(settings, why):
    with pytest.raises(InputError, match=why):
        GanRealNVPFit("gan_realnvp", **settings)


def test_algorithm_1_continues_the_flow_without_a_second_linear_start():
    from train.unsupervised.constrained_gan import ConstrainedGanFit

    assert ConstrainedGanFit(linear_steps=50, map_steps=100).hparams.linear_steps == 0
