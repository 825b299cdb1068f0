"""A finished seed of ``crossalign compare`` is kept and reused only when nothing that made it
changed."""
import numpy as np
import pytest

from train.experiments.seed_runs import SeedRun, load_seed_run, save_seed_run, seed_signature


def run() -> SeedRun:
    return SeedRun(rows={"clp/semantic": {"retrieval_cosine_src2tgt": 0.5, "epoch": 2.0}},
                   hits={"clp": np.array([1.0, 0.0, 1.0]), "center > clp": np.array([0.0, 1.0, 1.0])},
                   notes={"clp": "collapsed at epoch 3"},
                   tracking={"clp/semantic": float("nan")},
                   word_hits={"clp": np.array([0.0, 1.0, 1.0, 1.0]),
                              "center > clp": np.array([1.0, 1.0, 0.0, 0.0])})


def test_a_kept_seed_comes_back_whole(tmp_path):
    sig = seed_signature({"epochs": 6, "methods": ["clp"]}, seed=1)
    save_seed_run(tmp_path, 1, sig, run())
    back = load_seed_run(tmp_path, 1, sig)
    assert back is not None
    assert back.rows == run().rows and back.notes == run().notes
    assert np.isnan(back.tracking["clp/semantic"])
    for label, hits in run().hits.items():
        np.testing.assert_array_equal(back.hits[label], hits)
    for label, hits in run().word_hits.items():  # CBLI outcomes, kept apart from the verses'
        np.testing.assert_array_equal(back.word_hits[label], hits)
    assert not list(tmp_path.glob("*.tmp*"))  # nothing half-written left beside it


def test_other_settings_a_seed_or_a_damaged_file_fit_again(tmp_path):
    settings = {"epochs": 6, "methods": ["clp"]}
    sig = seed_signature(settings, seed=0)
    save_seed_run(tmp_path, 0, sig, run())
    assert seed_signature({**settings, "epochs": 7}, 0) != sig
    assert seed_signature(settings, 1) != sig
    assert load_seed_run(tmp_path, 0, seed_signature({**settings, "epochs": 7}, 0)) is None
    assert load_seed_run(tmp_path, 1, sig) is None  # no file for seed 1
    (tmp_path / "seed0.npz").write_bytes(b"not an npz")
    assert load_seed_run(tmp_path, 0, sig) is None
