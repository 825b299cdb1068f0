import json

import numpy as np

from alignment.data.simulation import simulate, transform, word_p1
from train.cli import main


def test_simulation_is_seeded_and_shaped():
    a, b = simulate(t=3, k=5, eps=1.0, seed=4), simulate(t=3, k=5, eps=1.0, seed=4)
    assert np.array_equal(a.y_train, b.y_train) and a.x_train.shape == (100, 2)
    shifted = simulate(t=3, k=5, eps=3.0, seed=4)
    assert np.array_equal(shifted.x_train, a.x_train)  # ε moves only the test occurrences
    assert np.allclose(shifted.x_test - a.x_test, shifted.x_test[0] - a.x_test[0], atol=1e-5)


def test_the_paper_shift_moves_every_component_and_the_paired_protocol_has_a_100_ceiling():
    base = simulate(t=3, k=5, eps=0.0, seed=2)
    shifted = simulate(t=3, k=5, eps=2.0, seed=2)
    np.testing.assert_allclose(shifted.x_test - base.x_test, 2.0, atol=1e-5)  # (ε, ε): length ε√2
    along = simulate(t=3, k=5, eps=2.0, seed=2, shift="direction")
    assert abs(np.linalg.norm((along.x_test - base.x_test)[0]) - 2.0) < 1e-5
    paired = simulate(t=3, k=10, eps=0.0, seed=2)
    assert word_p1(paired.y_test_true, paired.y_test, paired.word_test, paired.word_test) == 1.0
    fresh = simulate(t=3, k=10, eps=0.0, seed=2, protocol="fresh")
    assert word_p1(fresh.y_test_true, fresh.y_test, fresh.word_test, fresh.word_test) < 0.8
    assert np.array_equal(paired.y_train, fresh.y_train) and paired.x_val.shape == (100, 2)


def test_t1_is_a_rotation_and_t3_is_not_affine():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2)) * 3
    y1 = transform(x, 1, np.random.default_rng(1))
    assert np.allclose(np.linalg.norm(y1, axis=1), np.linalg.norm(x, axis=1))
    y3 = transform(x, 3, np.random.default_rng(1))
    design = np.hstack([x, np.ones((200, 1))])
    resid = y3 - design @ np.linalg.lstsq(design, y3, rcond=None)[0]
    assert np.abs(resid).max() > 0.5


def test_word_p1():
    pts = np.array([[0.0, 0.0], [10.0, 0.0]])
    assert word_p1(pts, pts, np.array([0, 1]), np.array([0, 1])) == 1.0
    assert word_p1(pts, pts[::-1], np.array([0, 1]), np.array([0, 1])) == 0.0


def test_simulate_command_writes_table_metrics_and_figure(tmp_path, capsys):
    assert main(["simulate", "--t", "1", "3", "--k", "10", "--eps", "0", "3", "--seeds", "0",
                 "--methods", "rotation", "fcnn", "--epochs", "3", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert set(metrics) == {f"{m}/t{t}/k10/eps{e}" for m in ("clp", "fcnn", "true map (ceiling)")
                            for t in (1, 3) for e in ("0", "3")}
    # paired protocol: the true map retrieves every test word, at every shift
    assert all(metrics[f"true map (ceiling)/t{t}/k10/eps{e}"] == 1.0 for t in (1, 3) for e in ("0", "3"))
    assert all(0 <= v <= 1 for v in metrics.values())
    assert "clp" in capsys.readouterr().out  # the alias is reported under its canonical name and (tmp_path / "table.txt").is_file()
    assert (tmp_path / "p1_vs_eps.png").is_file()


def test_a_diverging_variant_is_reported_not_scored_and_fit_stops_with_one_clear_line(tmp_path, capsys):
    assert main(["simulate", "--t", "3", "--k", "10", "--eps", "0", "--seeds", "0", "--epochs", "3",
                 "--methods", "fcnn", "realnvp:lr=100", "--out", str(tmp_path / "s"), "--no-progress"]) == 0
    metrics = json.loads((tmp_path / "s" / "metrics.json").read_text())
    assert np.isnan(metrics["realnvp:lr=100/t3/k10/eps0"]) and 0 <= metrics["fcnn/t3/k10/eps0"] <= 1
    assert "div" in (tmp_path / "s" / "table.txt").read_text()
    from alignment.data.simulation import simulate

    data = simulate(3, 10, 0.0, seed=0)
    np.savez(tmp_path / "pairs.npz", src=data.x_train, tgt=data.y_train)
    capsys.readouterr()
    assert main(["fit", "--config", "recipes/vectors/realnvp.yaml", "--data.vectors", str(tmp_path / "pairs.npz"),
                 "--model.init_args.lr", "100", "--trainer.default_root_dir", str(tmp_path / "run"),
                 "--trainer.logger", "false", "--trainer.callbacks", "[]", "--trainer.enable_progress_bar", "false"]) == 3
    err = capsys.readouterr().err
    assert "training diverged" in err and "parameter 'lr'" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "mapping").exists()


def test_unsupervised_rows_join_the_simulation_table(tmp_path, capsys):
    assert main(["simulate", "--t", "1", "--k", "5", "--eps", "0", "--seeds", "0", "--epochs", "2",
                 "--methods", "clp", "--unsupervised", "--gan-map-steps", "3", "--rounds", "1",
                 "--out", str(tmp_path / "sim"), "--no-progress"]) == 0
    table = (tmp_path / "sim" / "table.txt").read_text()
    assert "gan_realnvp (unpaired)" in table and "gan_realnvp + self-training (unpaired)" in table
    metrics = json.loads((tmp_path / "sim" / "metrics.json").read_text())
    for row in ("gan_realnvp (unpaired)", "gan_realnvp + self-training (unpaired)"):
        assert 0.0 <= metrics[f"{row}/t1/k5/eps0"] <= 1.0
    # the distance the GAN optimises is traced from before its first step
    assert "MMD² between mapped source and target validation pools" in table
    assert metrics["gan_realnvp (unpaired)/t1/k5/mmd_start"] > 0
    # each self-training round's induced pairs are judged by the simulated words
    assert "induced pairs that are the same word, per round" in table
    assert 0.0 <= metrics["gan_realnvp + self-training (unpaired)/t1/k5/precision_r1"] <= 1.0
