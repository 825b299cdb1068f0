"""``crossalign export --build``: an export rebuilt from its recipe and the public data clone
reproduces its fingerprints (real data step, real eflomal, real encoder); a recipe that made
something else is reported field by field; bad requests are refused before any work."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from alignment.errors import InputError
from alignment.export.recipe import RECIPE_FILE, Recipe
from alignment.xmover.configuration import ScoringConfig
from alignment.xmover.scorer import XMoverScorer
from train.cli import main

CLONE = Path(__file__).parents[2] / "fixtures" / "mlqe-clone"


def _recipe(hub_models, sentence_pairs: int = 10) -> Recipe:
    return Recipe("mlqe", "ro-en", ("--method", "center > clp", "--encoder", hub_models["tiny-bert"],
                                    "--layer", "1", "--sentence-map-kind", "least-squares",
                                    "--sentence-pairs", str(sentence_pairs),
                                    "--sentence-weight", "0.5"))


def _made_by_hand(tmp_path: Path, recipe: Recipe) -> Path:
    """The export as a maintainer made it: the recipe's two commands run by hand."""
    data, run = tmp_path / "made" / "data", tmp_path / "made" / "run"
    assert main(recipe.data_command(str(CLONE), str(data))[1:] + ["--no-progress"]) == 0
    assert main(recipe.train_command(data, str(run))[1:]) == 0
    recipe.write(run / "export")
    return run / "export"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*lost to truncation", "ignore:.*subword pieces")
def test_a_rebuilt_export_reproduces_every_fingerprint(tmp_path, hub_models, monkeypatch, capsys):
    shipped = _made_by_hand(tmp_path, _recipe(hub_models))
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "fresh-cache"))  # align afresh
    out = tmp_path / "rebuilt"
    assert main(["export", "--build", str(shipped), "--from", str(CLONE), "--out", str(out)]) == 0
    assert "every fingerprint is the shipped one" in capsys.readouterr().out
    report = json.loads((out / "build.json").read_text())
    assert report["reproduced"] and {f["field"] for f in report["fields"]} >= {
        "mapping_fingerprint", "sentence_map", "signature"}
    a, b = (json.loads((p / "remap.json").read_text()) for p in (shipped, out))
    assert a["sentence_map"] == b["sentence_map"] and a["mapping_fingerprint"] == b["mapping_fingerprint"]
    assert Recipe.read(out) == Recipe.read(shipped)  # the rebuild can be rebuilt

    # a recipe that does not say how the export was made is caught, field by field
    _recipe(hub_models, sentence_pairs=6).write(shipped)
    again = tmp_path / "rebuilt-other"
    assert main(["export", "--build", str(shipped), "--from", str(CLONE), "--out", str(again)]) == 2
    captured = capsys.readouterr()
    assert "DIFFERS  sentence_map" in captured.out and "sentence_map differ" in captured.err
    assert "mapping_fingerprint" not in captured.err  # the token map is still the same
    assert json.loads((again / "build.json").read_text())["reproduced"] is False


def test_bad_build_requests_are_refused_before_any_work(tmp_path, hub_models, capsys):
    no_recipe = tmp_path / "export"
    no_recipe.mkdir()
    (no_recipe / "remap.json").write_text("{}")
    out = tmp_path / "out"
    cases = [(["--build", str(no_recipe), "--from", str(CLONE)], f"keeps no {RECIPE_FILE}"),
             (["--build", str(tmp_path / "nothing"), "--from", str(CLONE)], "is no export"),
             (["--from", str(CLONE), "--run", str(tmp_path)], "--from goes with --build")]
    _recipe(hub_models).write(tmp_path / "with-recipe")
    (tmp_path / "with-recipe" / "remap.json").write_text("{}")
    cases.append((["--build", str(tmp_path / "with-recipe")], "needs --from CLONE"))
    for argv, message in cases:
        assert main(["export", *argv, "--out", str(out)]) == 2, argv
        assert message in capsys.readouterr().err
        assert not out.exists()


@pytest.mark.parametrize("raw, message", [
    ("not json", ":1: not JSON"),
    ('{"format": "other"}', "'format' must be"),
    ('{"format": "crossalign-recipe-1", "benchmark": "mlqe", "pair": "ro-en", "train": 3}',
     "'train' must be a list"),
    ('{"format": "crossalign-recipe-1", "benchmark": "mlqe", "pair": "ro-en", '
     '"train": ["--out", "x"]}', "refused '--out'"),
    ('{"format": "crossalign-recipe-1", "benchmark": "mlqe", "pair": "roen", "train": []}',
     "not xx-yy"),
    ('{"format": "crossalign-recipe-1", "benchmark": "mlqe", "pair": "en-de", "train": [], '
     '"text_from": "web"}', "text_from 'web' is not one of"),
])
def test_a_malformed_recipe_is_refused_naming_its_file(tmp_path, raw, message):
    from alignment.errors import InputError

    (tmp_path / RECIPE_FILE).write_text(raw)
    with pytest.raises(InputError, match=message) as err:
        Recipe.read(tmp_path)
    assert str(tmp_path / RECIPE_FILE) in str(err.value)


def test_a_recipe_on_packaged_text_builds_that_text_and_trains_on_it(tmp_path, hub_models):
    recipe = Recipe("mlqe", "en-de", _recipe(hub_models).train, text_from="parallel")
    steps = recipe.shell().splitlines()
    assert steps[0].startswith("crossalign data mlqe --from CLONE")
    assert steps[1] == "crossalign data parallel --pair de-en --out data/parallel-de-en"
    assert "--src data/parallel-de-en/train.en --tgt data/parallel-de-en/train.de" in steps[2]
    recipe.write(tmp_path)
    assert Recipe.read(tmp_path) == recipe
    assert Recipe("mlqe", "en-de", recipe.train).text_command() is None  # the benchmark's own


def test_a_recipe_for_a_pair_with_no_english_side_pairs_it_through_the_catalogues(hub_models):
    recipe = Recipe("eval4nlp", "ru-de", _recipe(hub_models).train, text_from="parallel")
    steps = recipe.shell().splitlines()
    assert steps[0].startswith("crossalign data eval4nlp --from CLONE")
    assert steps[1] == ("crossalign data parallel --pair ru-de --sources gettext --no-fetch "
                        "--out data/parallel-ru-de")
    assert "--src data/parallel-ru-de/train.ru --tgt data/parallel-ru-de/train.de" in steps[2]


@pytest.mark.filterwarnings("ignore:.*lost to truncation", "ignore:.*subword pieces",
                            "ignore:.*longer than the LM's context")
def test_a_recipe_makes_a_new_export_with_its_measured_card_and_a_variant_goes_to_the_cache(
        tmp_path, hub_models, monkeypatch, capsys):
    from alignment.export.card import read_headline
    from alignment.export.named import find_export

    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CROSSALIGN_EXPORTS", raising=False)
    # a folder beside the user's files spelled like the recipe's model names: the build's steps
    # run inside the build, so the names are the hub's, never these folders
    monkeypatch.chdir(tmp_path)
    for name in hub_models.values():
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "config.json").write_text("{not a model")
    recipe = Recipe("mlqe", "ro-en", _recipe(hub_models).train, ("--lm", hub_models["tiny-gpt2"]),
                    (("plain", ("--method", "center")),))
    recipe.write(tmp_path / "new")
    out = tmp_path / "made"
    assert main(["export", "--build", str(tmp_path / "new" / RECIPE_FILE), "--from", str(CLONE),
                 "--out", str(out), "--card", "-q"]) == 0
    assert "built mlqe/ro-en from its recipe" in capsys.readouterr().out
    # the recipe's scoring options now live in the export's scoring configuration
    assert Recipe.read(out) == replace(recipe, score=()) and json.loads(
        (out / "build.json").read_text())["reproduced"] is None  # nothing shipped to compare with
    config = ScoringConfig.load(out)
    assert config.lm == hub_models["tiny-gpt2"] and config.setting.weight("lm") == 0.01
    headline = read_headline(out)
    card = (out / "README.md").read_text()
    assert headline.on == "mlqe test" and headline.row.startswith("mlqe/ro-en ⊕ sentence ⊕ LM")
    assert f"{headline.value().split(' on ')[0]} | " in card  # the headline is a measured row
    assert all(x == round(x, 3) for x in (headline.pearson, headline.lo, headline.hi))  # as printed
    assert "crossalign export --build mlqe/ro-en --variant plain --from CLONE" in card
    # a new scoring setting in the recipe: --measure rewrites the card and the configuration
    # alone, no retrain; the name then scores with the new setting
    remap = (out / "remap.json").read_bytes()
    Recipe("mlqe", "ro-en", recipe.train, ("--xmover-weight", "1"), recipe.variants).write(out)
    monkeypatch.delenv("CROSSALIGN_PRECISION")  # on a CPU with native bf16, nothing pinned:
    monkeypatch.setattr("alignment.encoding.precision.cpu_has_bf16", lambda: True)
    assert main(["export", "--measure", str(out), "--from", str(CLONE), "-q"]) == 0
    monkeypatch.setenv("CROSSALIGN_PRECISION", "fp32")
    assert "prec:" not in read_headline(out).signature  # a card is measured in fp32 anywhere
    assert read_headline(out).row == "mlqe/ro-en ⊕ sentence" and "--lm" not in (
        out / "README.md").read_text()
    assert ScoringConfig.load(out).lm is None and Recipe.read(out).score == ()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # away from the decoys: the hub's models
    assert read_headline(out).signature == XMoverScorer(str(out)).signature
    monkeypatch.chdir(tmp_path)
    assert (out / "remap.json").read_bytes() == remap
    assert main(["export", "--measure", str(out), "--out", str(tmp_path / "x")]) == 2
    assert "--measure takes an export" in capsys.readouterr().err
    # the variant: the recipe with its options replaced, built into the cache, found by name
    assert main(["export", "--build", str(out), "--variant", "plain", "--from", str(CLONE),
                 "-q"]) == 0
    variant = find_export("mlqe/ro-en-plain")
    assert variant == tmp_path / "cache" / "exports" / "mlqe" / "ro-en-plain"
    assert json.loads((variant / "remap.json").read_text())["mapping_type"] == "center"
    assert dict(zip(Recipe.read(variant).train[::2], Recipe.read(variant).train[1::2]))[
        "--method"] == "center"
    assert main(["export", "--build", str(out), "--variant", "nosuch", "--from", str(CLONE)]) == 2
    assert "unknown variant 'nosuch' (known: plain" in capsys.readouterr().err
