"""The self-training loop without a training framework: linear rounds refit by Procrustes."""
import numpy as np
import pytest
import torch

from alignment.unsupervised.self_training import SelfTrainingConfig, self_train
from alignment.errors import InputError
from alignment.mappings import LinearMap, RealNVPMapping
from tests.conftest import planted_rotation


def isomorphic_toy(n=3000, d=8, clusters=40, angle=0.3, seed=0):
    return planted_rotation(n, d, clusters, angle, seed)


def test_self_training_recovers_a_planted_rotation_from_the_identity():
    x, y, rotation = isomorphic_toy()
    mapping, rounds = self_train(LinearMap(8), x, y, (x[:500], y[:500]),
                                SelfTrainingConfig(rounds=5, top=1000))
    assert np.abs(mapping.weight.detach().numpy() - rotation).max() < 1e-4
    assert [r.round for r in rounds] == [0, 1, 2, 3, 4, 5]
    assert rounds[1].lexicon > 0 and rounds[-1].semantic > rounds[0].semantic + 0.05


def test_bad_settings_are_refused_before_any_round():
    x, y, _ = isomorphic_toy(n=200)
    with pytest.raises(InputError, match="parameter 'constraint'"):
        self_train(LinearMap(8), x, y, (x, y), SelfTrainingConfig(constraint="corr"))
    with pytest.raises(InputError, match="parameter 'rounds'"):
        self_train(LinearMap(8), x, y, (x, y), SelfTrainingConfig(rounds=0))
    with pytest.raises(InputError, match="parameter 'refit'"):
        self_train(LinearMap(8), x, y, (x, y), SelfTrainingConfig(refit="gan"))
    with pytest.raises(InputError, match="parameter 'map_steps'"):
        self_train(LinearMap(8), x, y, (x, y), SelfTrainingConfig(refit="adversarial", map_steps=0))


def test_a_flow_needs_the_trainer_that_refits_it():
    x, y, _ = isomorphic_toy(n=200)
    with pytest.raises(InputError, match="refit_flow"):
        self_train(RealNVPMapping(8, transforms=1, hidden=4), x, y, (x, y))


def test_the_loop_calls_the_given_flow_refit_with_the_induced_pairs(tmp_path):
    """The caller's refit receives the induced rows and the two pools (Algorithm 1's
    adversarial refit trains on them), and its result is the round's mapping."""
    x, y, _ = isomorphic_toy(n=400)
    calls = []

    def refit(mapping, xs, ys, cfg, round_dir, pools):
        assert pools[0] is x and pools[1] is y
        calls.append((len(xs), len(ys), round_dir.name))
        return mapping

    flow = RealNVPMapping(8, transforms=1, hidden=4)
    torch.manual_seed(0)
    _, rounds = self_train(flow, x, y, (x[:100], y[:100]), SelfTrainingConfig(rounds=2, top=50),
                          refit_flow=refit, run_dir=tmp_path)
    assert [c[2] for c in calls] == ["round-1", "round-2"]
    assert all(0 < n == m <= 50 for n, m, _ in calls)
    assert [r.lexicon for r in rounds[1:]] == [c[0] for c in calls]


def test_each_round_reports_how_many_induced_pairs_are_true_and_resumes_it(tmp_path):
    """Pools of permuted pairs: the judge knows every target row's partner; precision rises as
    the rotation is recovered, and a resumed run reads it back (selection ignores it)."""
    from alignment.unsupervised.self_training import label_judge, lexicon_judge

    x, _, rotation = isomorphic_toy(n=1500)
    y = (x @ rotation).astype(np.float32)  # row i translates row i
    perm = np.random.default_rng(1).permutation(len(y))
    pools = (x, y[perm])  # target row j is the translation of source row perm[j]
    judge = label_judge(np.arange(len(x)), perm)  # the pair each row came from
    _, rounds = self_train(LinearMap(8), *pools, (x[:300], y[:300]),
                          SelfTrainingConfig(rounds=3, top=500), run_dir=tmp_path, judge=judge)
    assert rounds[0].precision is None  # round 0 induces nothing
    assert 0 <= rounds[1].precision < rounds[-1].precision and rounds[-1].precision > 0.9
    again = self_train(LinearMap(8), *pools, (x[:300], y[:300]), SelfTrainingConfig(rounds=3, top=500),
                      run_dir=tmp_path)[1]
    assert [r.precision for r in again] == [r.precision for r in rounds]
    # a dictionary judge: rows stand for words, a pair is true if the dictionary lists it
    dictionary = lexicon_judge(["Casa", "perro"], ["house", "dog"], {"casa": ["house", "home"]})
    assert dictionary(np.array([0, 1, 0]), np.array([0, 1, 1])) == pytest.approx(1 / 3)
