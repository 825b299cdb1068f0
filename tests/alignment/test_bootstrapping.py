"""The bootstrapping loop without a training framework: linear rounds refit by Procrustes."""
import numpy as np
import pytest
import torch

from alignment.unsupervised.bootstrapping import BootstrapConfig, bootstrap
from alignment.errors import InputError
from alignment.mappings import LinearMap, RealNVPMapping
from tests.conftest import planted_rotation


def isomorphic_toy(n=3000, d=8, clusters=40, angle=0.3, seed=0):
    return planted_rotation(n, d, clusters, angle, seed)


def test_bootstrapping_recovers_a_planted_rotation_from_the_identity():
    x, y, rotation = isomorphic_toy()
    mapping, rounds = bootstrap(LinearMap(8), x, y, (x[:500], y[:500]),
                                BootstrapConfig(rounds=5, top=1000))
    assert np.abs(mapping.weight.detach().numpy() - rotation).max() < 1e-4
    assert [r.round for r in rounds] == [0, 1, 2, 3, 4, 5]
    assert rounds[1].lexicon > 0 and rounds[-1].semantic > rounds[0].semantic + 0.05


def test_bad_settings_are_refused_before_any_round():
    x, y, _ = isomorphic_toy(n=200)
    with pytest.raises(InputError, match="parameter 'constraint'"):
        bootstrap(LinearMap(8), x, y, (x, y), BootstrapConfig(constraint="corr"))
    with pytest.raises(InputError, match="parameter 'rounds'"):
        bootstrap(LinearMap(8), x, y, (x, y), BootstrapConfig(rounds=0))


def test_a_flow_needs_the_trainer_that_refits_it():
    x, y, _ = isomorphic_toy(n=200)
    with pytest.raises(InputError, match="refit_flow"):
        bootstrap(RealNVPMapping(8, transforms=1, hidden=4), x, y, (x, y))


def test_the_loop_calls_the_given_flow_refit_with_the_induced_pairs(tmp_path):
    """The caller's refit receives the induced rows and its result is the round's mapping."""
    x, y, _ = isomorphic_toy(n=400)
    calls = []

    def refit(mapping, xs, ys, cfg, round_dir):
        calls.append((len(xs), len(ys), round_dir.name))
        return mapping

    flow = RealNVPMapping(8, transforms=1, hidden=4)
    torch.manual_seed(0)
    _, rounds = bootstrap(flow, x, y, (x[:100], y[:100]), BootstrapConfig(rounds=2, top=50),
                          refit_flow=refit, run_dir=tmp_path)
    assert [c[2] for c in calls] == ["round-1", "round-2"]
    assert all(0 < n == m <= 50 for n, m, _ in calls)
    assert [r.lexicon for r in rounds[1:]] == [c[0] for c in calls]
