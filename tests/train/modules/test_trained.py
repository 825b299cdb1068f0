import warnings

import numpy as np
import pytest
import torch
from pytorch_lightning.callbacks import Callback, ModelCheckpoint

from alignment.errors import InputError
from alignment.mappings import fit_composition, load_mapping
from alignment.mappings.moments import PairMoments
from train.callbacks import SaveMapping, SelectByCriterion
from train.data.paired import PairedVectorDataModule
from train.ground.trainer import quiet_trainer
from train.modules import FlowFit, RegressionFit

warnings.filterwarnings("ignore", ".*does not have many workers.*")


def _planted(kind: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = (2 * rng.normal(size=(n, 2))).astype(np.float32)
    if kind == "rotation":
        th = 0.7
        return x, (x @ np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])).astype(np.float32)
    y = x.copy()
    y[:, 1] = x[:, 1] + 0.3 * x[:, 0] ** 2
    y[:, 0] = x[:, 0] + np.sin(y[:, 1])
    return x, y


def _fit(kind, epochs=25, **kwargs):
    torch.manual_seed(0)
    x, y = _planted(kind, 600, 0)
    xv, yv = _planted(kind, 200, 1)
    dm = PairedVectorDataModule.from_arrays(x, y, val=(xv, yv), batch_size=100, shuffle=True)
    module = FlowFit("realnvp", lr=5e-3, transforms=3, hidden=32, **kwargs)
    quiet_trainer(max_epochs=epochs).fit(module, datamodule=dm)
    rotation = fit_composition(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)), "clp")
    err = lambda f: float(((f(torch.from_numpy(xv)) - torch.from_numpy(yv)) ** 2).sum(1).mean())  # noqa: E731
    with torch.no_grad():
        return err(module.mapping), err(rotation)


@pytest.mark.slow
def test_realnvp_recovers_a_nonlinear_bijection_better_than_rotation():
    flow, rotation = _fit("nonlinear")
    assert flow < 0.1 * rotation


@pytest.mark.slow
def test_rotation_recovers_a_rotation_at_least_as_well_as_realnvp():
    flow, rotation = _fit("rotation")
    assert rotation <= flow + 1e-9


class _Record(Callback):
    def __init__(self):
        self.semantic = []

    def on_train_epoch_end(self, trainer, pl_module):  # after that epoch's validation
        self.semantic.append(float(trainer.callback_metrics["semantic"]))


def test_checkpoint_selection_picks_the_epoch_the_criterion_says(tmp_path):
    torch.manual_seed(0)
    x, y = _planted("nonlinear", 300, 0)
    xv, yv = _planted("nonlinear", 100, 1)
    dm = PairedVectorDataModule.from_arrays(x, y, val=(xv, yv), batch_size=100, shuffle=True)
    record = _Record()
    ckpt = SelectByCriterion("semantic", dirpath=str(tmp_path / "ckpt"), filename="{epoch}")
    module = RegressionFit("fcnn", lr=1e-2, hidden=32, semantic_top=50)
    quiet_trainer(max_epochs=6, enable_checkpointing=True, callbacks=[record, ckpt, SaveMapping(str(tmp_path / "run"))],
                  num_sanity_val_steps=0).fit(module, datamodule=dm)
    best_epoch = int(np.argmax(record.semantic))
    assert ckpt.best_model_path.endswith(f"epoch={best_epoch}.ckpt") and ckpt.best_epoch == best_epoch
    assert float(ckpt.best_model_score) == pytest.approx(max(record.semantic))
    kept = ckpt.kept()  # the pick as a record: where, how much, the numbers logged there
    assert (kept.criterion, kept.epoch, kept.step) == ("semantic", best_epoch, 3 * (best_epoch + 1))
    assert kept.value == pytest.approx(max(record.semantic)) == kept.metrics["semantic"]
    # the saved mapping is the selected epoch's, not the last one
    state = torch.load(ckpt.best_model_path, weights_only=True)["state_dict"]
    saved = load_mapping(tmp_path / "run" / "mapping")
    for k, v in saved.state_dict().items():
        assert torch.equal(v, state[f"mapping.{k}"])


@pytest.mark.filterwarnings("ignore:You defined a `validation_step` but have no `val_dataloader`")
def test_resume_from_a_killed_run_gives_the_same_final_weights(tmp_path):
    x, y = _planted("nonlinear", 300, 0)

    def run(max_epochs, ckpt_dir, resume=None):
        torch.manual_seed(0)
        dm = PairedVectorDataModule.from_arrays(x, y, batch_size=64, shuffle=True, seed=3)
        module = RegressionFit("fcnn", lr=1e-2, hidden=16, dim=2)
        ckpt = ModelCheckpoint(dirpath=ckpt_dir, save_last=True, save_top_k=0)
        quiet_trainer(max_epochs=max_epochs, enable_checkpointing=True, callbacks=[ckpt]).fit(
            module, datamodule=dm, ckpt_path=resume)
        return module

    straight = run(4, tmp_path / "a")
    run(2, tmp_path / "b")  # "killed" after epoch 2
    resumed = run(4, tmp_path / "b", resume=str(tmp_path / "b" / "last.ckpt"))
    for (name, a), (_, b) in zip(straight.state_dict().items(), resumed.state_dict().items()):
        assert torch.equal(a, b), name


def test_each_criterion_selects_in_its_own_direction(tmp_path):
    """structural is lower-is-better, semantic higher-is-better: the callback reads the
    direction from the CRITERIA table, and 'fixed' (None) selects the last epoch."""
    x, y = _planted("nonlinear", 200, 0)
    xv, yv = _planted("nonlinear", 60, 1)
    torch.manual_seed(0)
    dm = PairedVectorDataModule.from_arrays(x, y, val=(xv, yv), batch_size=50, shuffle=True)
    record = _Record()
    seen = []

    class _Structural(Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            seen.append(float(trainer.callback_metrics["structural"]))

    selectors = {c: SelectByCriterion(c, dirpath=str(tmp_path / str(c)), save_last=False)
                 for c in ("semantic", "structural", None)}
    module = RegressionFit("fcnn", lr=1e-2, hidden=16, semantic_top=20)
    quiet_trainer(max_epochs=4, enable_checkpointing=True,
                  callbacks=[record, _Structural(), *selectors.values()]).fit(module, datamodule=dm)
    assert selectors["semantic"].best_epoch == int(np.argmax(record.semantic))
    assert selectors["structural"].best_epoch == int(np.argmin(seen))
    assert selectors[None].best_epoch == 3 and selectors[None].kept() is None  # nothing judged


def test_an_unknown_criterion_is_refused():
    from alignment.errors import InputError

    with pytest.raises(InputError, match="unknown criterion 'semantik'"):
        SelectByCriterion("semantik")


def test_a_module_refuses_a_method_of_another_family():
    from alignment.errors import InputError

    with pytest.raises(InputError, match="fitted by the 'flow' family"):
        RegressionFit("realnvp")


class _Sabotage(Callback):
    """Blows the weights up at the start of one epoch (a planted collapse with finite loss)."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def on_train_epoch_start(self, trainer, pl_module):
        if trainer.current_epoch == self.epoch:
            with torch.no_grad():
                for p in pl_module.parameters():
                    p.mul_(30.0)


def test_a_planted_blow_up_is_caught_and_the_best_weights_come_back():
    from train.callbacks import CollapseGuard

    x, y = _planted("nonlinear", 300, 0)
    xv, yv = _planted("nonlinear", 100, 1)
    torch.manual_seed(0)
    dm = PairedVectorDataModule.from_arrays(x, y, val=(xv, yv), batch_size=50, shuffle=True)
    guard = CollapseGuard()
    snapshots, losses = [], []

    class _Keep(Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            snapshots.append({k: v.clone() for k, v in pl_module.state_dict().items()})
            losses.append(float(trainer.callback_metrics["train_loss"]))

    module = RegressionFit("fcnn", lr=1e-2, hidden=16, semantic_top=20)
    with pytest.warns(UserWarning, match="collapsed at epoch 3.*lower lr"):
        quiet_trainer(max_epochs=8, callbacks=[_Keep(), _Sabotage(3), guard]).fit(module, datamodule=dm)
    assert guard.collapsed_epoch == 3 and module.current_epoch == 4  # stopped after epoch 3
    assert losses[3] > 10 * min(losses[:3])
    best = int(np.argmin(losses[:3]))
    restored = module.state_dict()
    assert all(torch.equal(restored[k], snapshots[best][k]) for k in restored)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:You defined a `validation_step` but have no `val_dataloader`")
def test_two_process_ddp_loss_equals_the_single_process_loss_when_shards_need_padding(tmp_path):
    """101 rows over 2 ranks: one rank's shard carries a weight-0 padding row and one real row
    fewer; the loss (and so the gradient DDP averages) is still the mean over all real rows."""
    import json

    import pytorch_lightning as pl

    from train.ground.distributed import CleanDDPStrategy

    x, y = _planted("nonlinear", 101, 0)
    np.savez(tmp_path / "pairs.npz", src=x, tgt=y)

    def run(devices: int, out) -> float:
        dm = PairedVectorDataModule(vectors=str(tmp_path / "pairs.npz"), batch_size=200)
        torch.manual_seed(0)
        module = RegressionFit("fcnn", lr=0.0, hidden=8, dim=2)  # lr 0: the weights stay put
        pl.Trainer(max_epochs=1, accelerator="cpu", devices=devices,
                   strategy=CleanDDPStrategy(start_method="spawn") if devices > 1 else "auto",
                   logger=False,
                   enable_checkpointing=False, enable_progress_bar=False,
                   enable_model_summary=False, default_root_dir=str(out),
                   callbacks=[SaveMapping()]).fit(module, datamodule=dm)
        return json.loads((out / "metrics.json").read_text())["train_loss"]

    assert run(2, tmp_path / "ddp") == pytest.approx(run(1, tmp_path / "one"), rel=1e-6)


def test_warmup_raises_the_learning_rate_linearly_then_holds_it():
    from alignment.errors import InputError

    module = FlowFit(lr=1e-2, warmup_steps=4, transforms=1, hidden=4, dim=2)
    conf = module.configure_optimizers()
    optimizer, schedule = conf["optimizer"], conf["lr_scheduler"]["scheduler"]
    assert conf["lr_scheduler"]["interval"] == "step"
    seen = []
    for _ in range(6):
        seen.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        schedule.step()
    assert seen == pytest.approx([2.5e-3, 5e-3, 7.5e-3, 1e-2, 1e-2, 1e-2])
    assert isinstance(FlowFit(transforms=1, hidden=4, dim=2).configure_optimizers(), torch.optim.Adam)
    with pytest.raises(InputError, match="warmup_steps"):
        FlowFit(warmup_steps=-1, dim=2)
    with pytest.raises(InputError, match="nll_per"):
        FlowFit(nll_per="token", dim=2)


class _DensityWeights(Callback):
    def __init__(self):
        self.weights = []

    def on_train_epoch_start(self, trainer, pl_module):
        self.weights.append(pl_module.loss_settings()["nll_weight"])


def test_nll_epochs_keeps_the_density_term_only_for_the_first_epochs():
    x, y = _planted("rotation", 200, 0)
    dm = PairedVectorDataModule.from_arrays(x, y, val=(x[:50], y[:50]), batch_size=100)
    record = _DensityWeights()
    module = FlowFit("realnvp", transforms=1, hidden=4, nll_weight=0.1, nll_epochs=2)
    quiet_trainer(max_epochs=4, callbacks=[record]).fit(module, datamodule=dm)
    assert record.weights == [0.1, 0.1, 0.0, 0.0]
    with pytest.raises(InputError, match="nll_epochs"):
        FlowFit(nll_epochs=-1)


def test_families_are_siblings_and_only_gradient_trained_ones_carry_a_pair_loss():
    """Gradient-trained, adversarial and self-learning fitters share ``MappingFit`` and none is
    a kind of another; a method has a registry loss exactly when its fitter trains on one."""
    from alignment.mappings import METHODS, parse_method
    from train.modules import ClosedFormFit, MappingFit, TrainedFit
    from train.unsupervised import AdversarialFit, MiningFit, SelfLearningFit
    from train.fitting.fitters import fitter_class

    families = (TrainedFit, AdversarialFit, SelfLearningFit, MiningFit)
    for a in families:
        assert issubclass(a, MappingFit)
        assert not any(issubclass(a, b) for b in families if b is not a)
    assert not issubclass(ClosedFormFit, MappingFit)
    for method in METHODS.values():
        fitter = fitter_class(parse_method(method.name))
        if method.trained:
            assert issubclass(fitter, MappingFit), method.name
            assert (method.loss is not None) == issubclass(fitter, TrainedFit), method.name
        else:
            assert fitter is ClosedFormFit


def test_a_fitter_of_another_family_is_refused_by_name():
    from train.modules import FlowFit
    from train.unsupervised import GanRealNVPFit, MuseFit

    with pytest.raises(InputError, match="fitted by the 'muse' family, not by GanRealNVPFit"):
        GanRealNVPFit("muse")
    with pytest.raises(InputError, match="fitted by the 'gan_realnvp' family, not by FlowFit"):
        FlowFit("gan_realnvp")
    with pytest.raises(InputError, match="parameter 'orthogonalise'"):
        MuseFit("muse", orthogonalise=-1)
