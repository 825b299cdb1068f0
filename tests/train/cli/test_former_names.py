"""Names of 0.3.0 and earlier that still work, each with a note: the self-training options
(``--boot-*``), routes (``gan_realnvp + boot (…)``) and recipe class paths."""
import importlib

import pytest

from train.cli import main


def test_a_former_option_name_is_the_new_option(tmp_path, capsys):
    data = tmp_path / "bible"
    assert main(["unsupervised", "--data-dir", str(data), "--out", str(tmp_path / "out"),
                 "--boot-weight", "nan"]) == 2
    assert "--self-training-weight" in capsys.readouterr().err
    assert not data.exists()


def test_a_former_route_name_is_todays_route_with_a_warning():
    from train.experiments.unsupervised_routes import ROUTES, current_route_names

    with pytest.warns(UserWarning, match="is now 'gan_realnvp \\+ self-training \\(graph\\)'"):
        names = current_route_names(["center", "gan_realnvp + boot (graph)"])
    assert names == ["center", "gan_realnvp + self-training (graph)"] and names[1] in ROUTES


def test_a_recipe_naming_former_class_paths_gets_todays_classes(tmp_path):
    from train.cli.fit import MOVED_CLASSES, accept_old_class_paths
    from train.unsupervised.self_training import SelfTraining

    recipe = tmp_path / "old.yaml"
    recipe.write_text("trainer:\n  callbacks:\n    - class_path: train.callbacks.bootstrap.Bootstrap\n")
    with pytest.warns(UserWarning, match="'train.callbacks.bootstrap.Bootstrap' is now "
                                         "'train.unsupervised.self_training.SelfTraining'"):
        accept_old_class_paths(["--config", str(recipe)])
    assert importlib.import_module("train.callbacks.bootstrap").Bootstrap is SelfTraining
    for old, new in MOVED_CLASSES.former_names().items():
        old_module, _, old_name = old.rpartition(".")
        new_module, _, new_name = new.rpartition(".")
        assert getattr(importlib.import_module(old_module), old_name) is \
            getattr(importlib.import_module(new_module), new_name)


def test_scores_pairs_file_is_still_read_under_its_former_name(tmp_path, tiny_bert, capsys):
    """``score --pairs FILE`` is now ``--pairs-file`` (``--pairs`` lists language pairs in
    ``evaluate`` and ``choose``); the former spelling reads the same file, with a note."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("la casa\tthe house\nel perro\tthe dog\n")
    common = ["score", "--encoder", str(tiny_bert), "--layer", "1", "--format", "tsv"]
    assert main([*common, "--pairs-file", str(pairs), "--shards", str(tmp_path / "a")]) == 0
    new = capsys.readouterr().out
    assert main([*common, "--pairs", str(pairs), "--shards", str(tmp_path / "b")]) == 0
    old = capsys.readouterr()
    assert old.out == new and "--pairs is now --pairs-file" in old.err
