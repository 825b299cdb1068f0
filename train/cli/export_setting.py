"""An export's scoring configuration made from scoring options: the words of a recipe's
``score`` list (or of ``score``'s command line) read by the scorer's own option declaration,
and — for an export made before exports kept one — moved out of its recipe and card by
``crossalign export --upgrade``."""
from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import replace
from pathlib import Path

from alignment.errors import InputError
from alignment.encoding.precision import asked_precision

UNMAPPED, THIS = "unmapped", "this export"  # the rows of a card's agreement table


def config_of_options(words: list[str] | tuple[str, ...], export: str | Path | None = None,
                      measured=None):
    """The ``ScoringConfig`` that scoring options describe (``--sentence-weight 1 --term
    gemma-given-source=0.05 --read written``); a sentence weight left out is the ``export``'s
    sentence map's own, as the scorer takes it. Refused, naming the option, as ``score``
    refuses it."""
    from alignment.xmover.configuration import ScoringConfig
    from alignment.xmover.sentence_map import resolve_sentence_map
    from alignment.terms import Setting
    from alignment.xmover.versions import get_version

    from .scorer_options import add_setting_options, check_weights, term_weights

    parser = argparse.ArgumentParser(prog="scoring options", add_help=False)
    parser.add_argument("--lm")
    add_setting_options(parser)
    try:
        args = parser.parse_args(list(words))
    except SystemExit:
        raise InputError(f"not scoring options: {shlex.join(words)}", parameter="score") from None
    check_weights(args)
    formula = args.version or "2022"
    sentence = args.sentence_weight
    if sentence is None:
        smap = resolve_sentence_map(export, args.sentence_map)
        sentence = smap.coef if smap is not None else 0.0
    lm_weight = 0.0 if not args.lm else (
        get_version(formula).lm_weight if args.lm_weight is None else args.lm_weight)
    setting = Setting.of(xmover=1.0 if args.xmover_weight is None else args.xmover_weight,
                         lm=lm_weight, sentence=sentence, **term_weights(args))
    return ScoringConfig.of(setting, measured, formula=formula, read=args.read or "given",
                            precision=asked_precision(args.precision) or "fp32", lm=args.lm)


def renamed_terms(text: str) -> str:
    """``text`` with every renamed term called by its name now (options, signatures)."""
    from alignment.terms import TERMS

    for old, new in TERMS.former_names().items():
        text = re.sub(rf"(?<![\w-]){re.escape(old)}(?![\w-])", new, text)
    return text


def upgraded_files(folder: Path, name: str | None = None) -> dict[str, str]:
    """The files ``export --upgrade`` writes for an export made before exports kept a scoring
    configuration: ``scoring.json`` from its recipe's scoring options and its card's headline
    (with the measured row's signature), the recipe without the options it now keeps there, and
    the card saying the name alone scores as measured (``name``: the export's short name; by
    default its recipe's ``BENCHMARK/PAIR``). Nothing for an export that keeps one."""
    from alignment.export.card import CARD_FILE, SCORING_FILE, old_headline, replace_section
    from alignment.export.recipe import RECIPE_FILE, Recipe

    if (folder / SCORING_FILE).exists():  # copied as it is: checked first, never copied damaged
        from alignment.xmover.configuration import ScoringConfig

        ScoringConfig.load(folder)
        return {}
    recipe = Recipe.read(folder) if (folder / RECIPE_FILE).is_file() else None
    words = [renamed_terms(w) for w in (recipe.score if recipe else ())]
    name = name or (f"{recipe.benchmark}/{recipe.pair}" if recipe else folder.name)
    card = folder / CARD_FILE
    text = renamed_terms(card.read_text(encoding="utf-8")) if card.is_file() else None
    signature = next((line.split("`")[1] for line in (text or "").splitlines()
                      if line.startswith(f"- {THIS}") and line.count("`") >= 2), "")
    headline = old_headline(folder, signature)
    if headline is not None:
        headline = replace(headline, row=renamed_terms(headline.row))
    config = config_of_options(words, folder, headline)
    out = {SCORING_FILE: config.as_json()}
    if recipe is not None:
        out[RECIPE_FILE] = replace(recipe, score=()).as_json()
    if text is not None:
        out[CARD_FILE] = replace_section(text, "Use it", use_section(name, config))
    return out


def use_section(name: str, config) -> list[str]:
    """A card's "Use it": the name alone scores as measured (the export's ``scoring.json``),
    and the same setting on an encoder without one."""
    words = shlex.join(config.options())
    return ["The export keeps the setting its card measured (`scoring.json`): its name alone "
            "scores with it; an option given overrides it and the signature says so "
            "(`over:`).", "", "```sh", f"crossalign score --encoder {name} --src SRC --hyp MT",
            "```"] + ([] if not words else [
                "", "The same setting on an encoder without it:", "", "```sh",
                f"crossalign score --encoder ENCODER --src SRC --hyp MT {words}", "```"])
