"""A new *trained* method family through the public extension points only: its mapping (a
``Mapping`` subclass with a ``kind``), its loss, its fitter (a ``TrainedFit`` subclass) and
one registry entry (the fitter registered by its family) — then trained, composed, saved, exported and scored through the CLI with
nothing else changed."""
import json

import numpy as np
import pytest
import torch
from torch import nn

from alignment.mappings import Mapping, Method, MethodSpec, register_method, unregister_method
from alignment.mappings.base import weighted_mean
from alignment.mappings.moments import PairStatistics
from tests.conftest import EN, ES, identity_alignment_file
from train.cli import main
from train.modules import TrainedFit


class Shift(Mapping):
    """x ↦ x + b: the smallest trained map (a learned translation)."""

    kind = "test_shift"

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.bias = nn.Parameter(torch.zeros(dim))

    def config(self) -> dict:
        return {"dim": self.dim}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.bias.to(x.dtype)


def shift_loss(mapping, x, y, weight=None) -> dict:
    mse = weighted_mean(((mapping(x) - y) ** 2).sum(1), weight)
    return {"mse": mse, "loss": mse}


class ShiftFit(TrainedFit):
    """Fits ``test_shift`` by gradient steps on the squared error."""

    family = "test_shift"

    def __init__(self, method: str | MethodSpec = "test_shift", lr: float = 0.1, weight_decay: float = 0.0,
                 semantic_top: float = 1000, semantic_mutual: bool = False,
                 warmup_steps: int = 0, dim: int | None = None) -> None:
        super().__init__(method, lr, weight_decay, semantic_top, semantic_mutual, dim,
                         warmup_steps)
        self.save_hyperparameters()
        self._build_now(dim)

    def build_mapping(self, dim: int, stats: PairStatistics | None) -> Mapping:
        return Shift(dim)


@pytest.fixture
def shift_method():
    from train.fitting.fitters import register_fitter, unregister_fitter

    register_method(Method("test_shift", Shift, "trained", "test_shift", shift_loss,
                           summary="a learned translation"))
    register_fitter(ShiftFit)
    yield
    unregister_method("test_shift")
    unregister_fitter("test_shift")


def test_a_trained_family_needs_its_own_classes_and_one_registry_entry(shift_method, tmp_path):
    from alignment.mappings import load_mapping
    from train.fitting.in_process import fit_arrays

    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 6)).astype(np.float32)
    offset = np.linspace(-1, 1, 6).astype(np.float32)
    mapping = fit_arrays(x, x + offset, "test_shift", tmp_path / "alone", epochs=60,
                         batch_size=128)
    np.testing.assert_allclose(mapping.bias.detach().numpy(), offset, atol=0.05)
    composed = fit_arrays(x, x + offset, "center > test_shift", tmp_path / "run", epochs=2,
                          batch_size=128)
    again = load_mapping(tmp_path / "run" / "mapping")
    assert again.describe() == "center > test_shift"
    assert again.fingerprint() == composed.fingerprint()


def test_the_new_family_trains_exports_and_scores_from_the_cli(shift_method, tmp_path, tiny_bert,
                                                               capsys):
    src, tgt = tmp_path / "mine.es", tmp_path / "mine.en"
    src.write_text("".join(s + "\n" for s in ES * 3))
    tgt.write_text("".join(t + "\n" for t in EN * 3))
    align = identity_alignment_file(tmp_path / "mine.align", ES * 3, EN * 3)
    out = tmp_path / "run"
    assert main(["train", "--method", "center > test_shift:lr=0.01", "--src", str(src),
                 "--tgt", str(tgt), "--out", str(out), "--encoder", str(tiny_bert),
                 "--alignment", str(align), "--epochs", "2", "--val-fraction", "0.3",
                 "--trainer.enable_progress_bar", "false"]) == 0
    meta = json.loads((out / "export" / "remap.json").read_text())
    assert meta["mapping_type"] == "center > test_shift"
    capsys.readouterr()
    assert main(["score", "--encoder", str(out / "export"), "--src", str(src), "--hyp",
                 str(tgt), "--format", "json", "-q"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert "map:center > test_shift#" in scores["signature"]
    assert len(scores["segments"]) == 3 * len(ES) and all(0 < s <= 1 for s in scores["segments"])
