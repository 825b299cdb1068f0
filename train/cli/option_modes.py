"""Which modes of ``score``, ``evaluate NAME`` and ``choose`` use each option: the one table
that says so, and the check that refuses, in one line naming the option and the mode, an
option the user gave that the chosen mode would ignore — before anything is read or loaded."""
from __future__ import annotations

import argparse

from alignment.errors import InputError

EVERY = "every mode"

# ``score``: XMoverScore (one or several systems), in shards, with word scores, or another metric
XMOVER, SHARDS, WORDS = "xmoverscore", "shards", "words"
CONSUMERS = ("moverscore-v1", "moverscore-v2", "baryscore", "bertscore", "sentsim")
_XMOVER_ALL = (XMOVER, SHARDS, WORDS)
_PREPROCESSING = ("moverscore-v1", "moverscore-v2", "baryscore")
_SIMILARITY = ("bertscore", "sentsim")

SCORE_MODES: dict[str, tuple[str, ...] | str] = {
    # what every mode reads
    "encoder": EVERY, "src": EVERY, "hyp": EVERY, "format": EVERY, "score_only": EVERY,
    "quiet": EVERY, "threads": EVERY, "metric": EVERY, "batch_size": EVERY, "device": EVERY,
    # XMoverScore's setting and its runtime
    "version": _XMOVER_ALL, "setting": _XMOVER_ALL, "xmover_weight": _XMOVER_ALL,
    "lm": _XMOVER_ALL, "lm_weight": _XMOVER_ALL, "term": _XMOVER_ALL, "read": _XMOVER_ALL,
    "sentence_weight": _XMOVER_ALL, "sentence_layer": _XMOVER_ALL, "sentence_map": _XMOVER_ALL,
    "mapping": _XMOVER_ALL, "mapping_both_sides": _XMOVER_ALL, "public_gbdd": _XMOVER_ALL,
    "src_lang": _XMOVER_ALL, "tgt_lang": _XMOVER_ALL, "idf_src": _XMOVER_ALL,
    "idf_hyp": _XMOVER_ALL, "precision": _XMOVER_ALL, "reuse": _XMOVER_ALL,
    "no_reuse": _XMOVER_ALL, "jobs": _XMOVER_ALL,
    "layer": (*_XMOVER_ALL, *_SIMILARITY), "ngram": (*_XMOVER_ALL, "moverscore-v1", "moverscore-v2"),
    # several systems
    "timings": (XMOVER,), "paired_bs": (XMOVER,), "paired_bs_n": (XMOVER,), "seed": (XMOVER,), "consensus": (XMOVER,),
    # a run in shards
    "pairs": (SHARDS,), "devices": (SHARDS,), "num_nodes": (SHARDS,), "shards": (SHARDS,),
    "shard_size": (SHARDS,),
    # word scores
    "words": (WORDS,), "word_weights": (WORDS,), "word_pool": (WORDS,), "word_threshold": (WORDS,),
    # the other metrics' own
    "ref": CONSUMERS, "preprocessing": _PREPROCESSING, "subwords": _PREPROCESSING,
    "punctuation": _PREPROCESSING, "stopwords": _PREPROCESSING, "idf": _PREPROCESSING,
    "lowercase": _PREPROCESSING, "layers": ("moverscore-v1", "moverscore-v2"),
    "last_layers": ("baryscore",), "sentence_term": ("sentsim",),
}

# ``evaluate NAME``: sentence scores against people's (the default) or word scores
SENTENCES = "sentence scores"
EVALUATE_MODES: dict[str, tuple[str, ...] | str] = {
    **{d: EVERY for d in ("data", "encoder", "labels", "row", "rows", "pairs", "split",
                          "format", "quiet", "threads", "bootstrap", "seed", "out", "lm", "version", "layer",
                          "ngram", "setting", "read", "precision", "reuse", "no_reuse",
                          "batch_size", "device", "jobs")},
    **{d: (SENTENCES,) for d in ("scores", "metric_row", "no_baselines", "system_lines",
                                 "consensus", "xmover_weight", "lm_weight", "term", "sentence_weight",
                                 "sentence_layer", "sentence_map")},
    "words": EVERY,  # --words and --sentences choose the mode
    **{d: (WORDS,) for d in ("word_pool", "word_weights")},
}

CHOOSE = "choose"
CHOOSE_MODES: dict[str, tuple[str, ...] | str] = {d: EVERY for d in (
    "dev", "data", "pairs", "max_per_pair", "candidates", "labels", "calibrate", "lm", "lm_weights",
    "sentence_weights", "term_weights", "xmover_weight", "version", "layer", "ngram", "read",
    "precision", "reuse", "no_reuse", "batch_size", "device", "jobs", "out", "quiet", "format",
    "threads")}

# options that only mean something beside another: (option, what it needs, given by the user?)
REQUIRES: dict[str, tuple[tuple[str, str], ...]] = {
    "score": (("seed", "paired_bs"), ("paired_bs_n", "paired_bs"),
              ("mapping_both_sides", "mapping"), ("public_gbdd", "mapping"),
              ("idf_hyp", "idf_src")),
    "choose": (("lm_weights", "lm"),),
    "evaluate": (),
}
# what to do instead, where leaving the option out is not the whole answer
HINTS = {("score", "mapping"): "a map is read at the layer it was fitted at, so the other "
         "metrics take it inside an export: `crossalign export` it and give --encoder EXPORT "
         "(the map is then applied to the source side and signed)"}
MODE_TABLES = {"score": SCORE_MODES, "evaluate": EVALUATE_MODES, "choose": CHOOSE_MODES}


def given_options(parsers: list[argparse.ArgumentParser], argv: list[str]) -> dict[str, str]:
    """The options the command line gave (dest: the spelling typed), read off ``argv`` with the
    option strings of the verb's parsers (an unambiguous abbreviation counts, as argparse
    takes it); a value is never taken for an option unless it spells one exactly."""
    actions: dict[str, argparse.Action] = {}
    for parser in parsers:
        actions.update(parser._option_string_actions)
    given: dict[str, str] = {}
    for token in argv:
        if token == "--":
            break
        if not token.startswith("-") or token == "-":
            continue
        word = token.split("=", 1)[0]
        action = actions.get(word)
        if action is None and word.startswith("--"):
            found = [a for s, a in actions.items() if s.startswith(word)]
            action = found[0] if len({id(a) for a in found}) == 1 else None
        if action is not None and action.dest not in ("help", argparse.SUPPRESS):
            given.setdefault(action.dest, word)
    return given


def score_mode(args: argparse.Namespace) -> str:
    """The mode of a ``score`` command: another metric, a run in shards, word scores, else
    XMoverScore."""
    from .score_metric import wants_other_metric
    from .score_shards import in_shards

    if wants_other_metric(args):
        return args.metric
    if in_shards(args):
        return SHARDS
    return WORDS if args.words else XMOVER


def check_modes(verb: str, mode: str, args: argparse.Namespace) -> None:
    """Refuse, in one line naming the option and the mode, an option given that ``mode`` does
    not use, or that needs another option not given. ``args.given`` (set by ``main``) says what
    was given; a namespace built without it (a library caller) is not checked."""
    given: dict[str, str] | None = getattr(args, "given", None)
    if given is None:
        return
    table = MODE_TABLES[verb]
    for dest, spelled in given.items():
        modes = table.get(dest, ())
        if modes != EVERY and mode not in modes:
            used = f" (it is for {', '.join(_mode_words(verb, m) for m in modes)})" if modes \
                else ""
            hint = HINTS.get((verb, dest)) if mode in CONSUMERS else None
            raise InputError(f"{spelled} is not used by {_mode_words(verb, mode)}{used}: "
                             f"{hint or 'leave it out'}", parameter=spelled.lstrip("-"))
    for dest, needs in REQUIRES[verb]:
        if dest in given and needs not in given and not getattr(args, needs, None):
            need = "--" + needs.replace("_", "-")
            raise InputError(f"{given[dest]} is used only with {need}: give {need} or leave "
                             f"{given[dest]} out", parameter=given[dest].lstrip("-"))


def _mode_words(verb: str, mode: str) -> str:
    """How a message names a mode."""
    if verb == "score":
        return {XMOVER: "XMoverScore (score without --metric)",
                SHARDS: "a run in shards (--pairs-file, --devices, --num-nodes, --shards)",
                WORDS: "word scores (--words)"}.get(mode, f"--metric {mode}")
    if verb == "evaluate":
        return {WORDS: "word scores (--words)", SENTENCES: "sentence scores"}.get(mode, mode)
    return mode
