import json

import numpy as np
import pytest
import torch

from alignment.mappings import RealNVPMapping, load_mapping
from tests.conftest import identity_flow, planted_rotation
from alignment.unsupervised.self_training import SelfTrainingConfig, induce_lexicon
from train.unsupervised.self_training import refit_flow, self_train


def isomorphic_toy(n=3000, d=8, clusters=40, angle=0.3, seed=0):
    return planted_rotation(n, d, clusters, angle, seed)


@pytest.mark.parametrize("constraint", ["cross_correlation", "graph", "procrustes"])
def test_flow_rounds_log_the_lexicon_and_the_criterion(constraint, tmp_path):
    x, y, _ = isomorphic_toy(n=1500)
    cfg = SelfTrainingConfig(rounds=2, top=600, epochs=2, lr=1e-3, constraint=constraint,
                          batch_size=200)
    mapping, rounds = self_train(identity_flow(x, y), x, y, (x[:300], y[:300]), cfg, run_dir=tmp_path)
    assert isinstance(mapping, RealNVPMapping)
    saved = json.loads((tmp_path / "round-2" / "round.json").read_text())
    assert saved["round"] == 2 and 0 < saved["lexicon"] <= 600
    assert np.isfinite(saved["semantic"])
    assert max(r.semantic for r in rounds[1:]) > rounds[0].semantic  # the refits help
    assert load_mapping(tmp_path / "round-2" / "mapping").fingerprint()


def test_resume_mid_round_equals_an_uninterrupted_run(tmp_path):
    x, y, _ = isomorphic_toy(n=1200)
    cfg = SelfTrainingConfig(rounds=2, top=500, epochs=2, lr=1e-3, batch_size=200)
    val = (x[:300], y[:300])
    whole, _ = self_train(identity_flow(x, y), x, y, val, cfg, run_dir=tmp_path / "whole")
    # interrupted: round 1 finished, round 2 stopped after its first epoch
    part = tmp_path / "part"
    self_train(identity_flow(x, y), x, y, val, SelfTrainingConfig(**{**vars(cfg), "rounds": 1}), run_dir=part)
    first = load_mapping(part / "round-1" / "mapping")
    q, k = induce_lexicon(first, x, y, cfg)
    refit_flow(first, x[q], y[k], SelfTrainingConfig(**{**vars(cfg), "epochs": 1}), part / "round-2")
    assert (part / "round-2" / "checkpoints" / "last.ckpt").is_file()
    assert not (part / "round-2" / "round.json").exists()
    resumed, rounds = self_train(identity_flow(x, y), x, y, val, cfg, run_dir=part)
    final_whole = load_mapping(tmp_path / "whole" / "round-2" / "mapping")
    final_resumed = load_mapping(part / "round-2" / "mapping")
    for name, t in final_whole.tensors().items():
        assert torch.allclose(t, final_resumed.tensors()[name], atol=1e-6), name
    assert len(rounds) == 3
