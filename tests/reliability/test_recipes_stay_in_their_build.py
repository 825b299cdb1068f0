"""A recipe is data from outside: whatever its ``train``, ``score`` or variant lists say, it can
set only what a recipe may set (``recipe_options``), name models only by name, and write
nowhere but its build — a hostile spelling is refused in one line naming the file and the
option, before anything runs, and the user's runs are untouched."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from alignment.errors import InputError
from alignment.export.recipe import RECIPE_FILE, Recipe
from train.cli import main

CLONE = Path(__file__).parents[1] / "fixtures" / "mlqe-clone"
BASE = ["--method", "center > clp", "--encoder", "crossalign-tests/tiny-bert", "--layer", "1"]


def _write(folder: Path, train: list, score: list | None = None,
           variants: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    raw = {"format": "crossalign-recipe-1", "benchmark": "mlqe", "pair": "ro-en", "train": train}
    if score is not None:
        raw["score"] = score
    if variants is not None:
        raw["variants"] = variants
    (folder / RECIPE_FILE).write_text(json.dumps(raw))
    return folder / RECIPE_FILE


HOSTILE_TRAIN = [
    ["--trainer.default_root_dir", "{victim}"], ["--trainer.default_root_dir={victim}"],
    ["--out={victim}"], ["--ou", "{victim}"], ["--overwr"], ["--overwrite"],
    ["--config={victim}/evil.yaml"], ["--conf", "{victim}/evil.yaml"],
    ["--trainer", '{{"default_root_dir": "{victim}"}}'], ["--trainer.callbacks", "x"],
    ["--data.cache_dir", "{victim}"], ["--data.src", "{victim}/x"], ["--model.init_args.x", "1"],
    ["--alignment", "{victim}/links"], ["--src", "{victim}/x"], ["--reuse"],
    ["--encoder", "{victim}"], ["--encoder", "../../victim"], ["--encoder", "~/victim"],
    ["--sentence-space", "./victim"], ["--layer", "--out"], ["--seed"], ["--ckpt_path", "x"],
    ["--epochs", "nan"], ["--threads", "0"], ["--val-fraction", "-1"], ["--device", "gpu"],
]


@pytest.mark.parametrize("extra", HOSTILE_TRAIN, ids=lambda e: " ".join(e)[:40])
def test_a_recipe_option_that_could_write_or_read_elsewhere_is_refused_naming_it(tmp_path, extra):
    victim = tmp_path / "victim"
    path = _write(tmp_path / "r", BASE + [e.format(victim=victim) for e in extra])
    with pytest.raises(InputError) as err:
        Recipe.read(path.parent)
    message = str(err.value)
    assert message.startswith(str(path)) and "'train'" in message, message
    assert extra[0].split("=")[0] in message, message
    assert "\n" not in message


@pytest.mark.parametrize("score", [["--out", "x"], ["--data", "x"], ["--reuse"],
                                   ["--lm", "/models/lm"], ["--term", "x"], ["--read", "raw"],
                                   ["--term", "use=1", "--term", "use=2"],
                                   ["--lm-weight", "inf"]])
def test_a_recipe_scoring_option_is_checked_as_data(tmp_path, score):
    path = _write(tmp_path, BASE, score)
    with pytest.raises(InputError, match=r"'score'") as err:
        Recipe.read(tmp_path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("variants, message", [
    ({"evil": ["--trainer.default_root_dir", "/tmp/x"]}, "'variants.evil': refused"),
    ({"../up": ["--method", "center"]}, "variant name '../up'"),
    ({"flow": ["--epochs", "4", "--epochs", "5"]}, "--epochs is given twice"),
    ({"flow": "--method clp"}, "'variants.flow' must be a list"),
])
def test_a_recipe_variant_is_checked_as_its_train_list_is(tmp_path, variants, message):
    _write(tmp_path, BASE, variants=variants)
    with pytest.raises(InputError, match=message):
        Recipe.read(tmp_path)


def test_an_option_given_twice_and_an_unknown_key_are_refused(tmp_path):
    _write(tmp_path, BASE + ["--method", "clp"])
    with pytest.raises(InputError, match="--method is given twice"):
        Recipe.read(tmp_path)
    raw = json.loads((tmp_path / RECIPE_FILE).read_text())
    raw["train"], raw["shell"] = BASE, "rm -rf /"
    (tmp_path / RECIPE_FILE).write_text(json.dumps(raw))
    with pytest.raises(InputError, match="'shell' is not a recipe key"):
        Recipe.read(tmp_path)


def test_a_hostile_recipe_leaves_a_users_run_as_it_was(tmp_path, capsys, monkeypatch):
    """``export --build`` of a recipe that tries to write over a run the user already has:
    one line, exit 2, the run's files byte for byte as they were, no output folder."""
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "runs" / "mine"
    victim.mkdir(parents=True)
    (victim / "run.json").write_text('{"mine": true}')
    before = {p.name: p.read_bytes() for p in victim.iterdir()}
    for extra in (["--trainer.default_root_dir", str(victim)], ["--overwr"],
                  ["--conf", str(victim / "x.yaml")]):
        path = _write(tmp_path / "hostile", BASE + extra)
        out = tmp_path / "out"
        assert main(["export", "--build", str(path), "--from", str(CLONE), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and extra[0] in err, err
        assert not out.exists()
        assert {p.name: p.read_bytes() for p in victim.iterdir()} == before


def test_a_variant_unknown_to_a_recipe_file_is_refused_not_built_as_the_base(tmp_path, capsys):
    path = _write(tmp_path / "r", BASE, variants={"flow": ["--method", "clp_flow"]})
    assert main(["export", "--build", str(path), "--variant", "nosuch", "--from", str(CLONE),
                 "--out", str(tmp_path / "out")]) == 2
    assert "unknown variant 'nosuch'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_shipped_recipes_pass_the_allow_list():
    root = Path(__file__).parents[2] / "exports"
    recipes = sorted(root.glob("*/*/" + RECIPE_FILE))
    assert len(recipes) >= 13
    for path in recipes:
        recipe = Recipe.read(path.parent)
        for name, _ in recipe.variants:
            recipe.variant(name)


def test_the_allow_list_names_what_the_registries_hold():
    """The criteria and sentence-map kinds a recipe may name are those the product registers
    (written out in recipe_options, which may not import the layers that register them)."""
    from alignment.evaluation.criteria import CRITERIA
    from alignment.export import recipe_options
    from alignment.xmover.sentence_map import KINDS

    assert set(recipe_options.CRITERIA) == set(CRITERIA)
    assert set(recipe_options.SENTENCE_MAPS) == set(KINDS)
