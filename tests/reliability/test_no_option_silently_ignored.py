"""No option of ``score``, ``evaluate NAME`` or ``choose`` is silently ignored: the option table
covers every option each parser accepts, and walking it against every mode, each option the
mode does not use is refused in one line that names the option and the mode — before any
file is read or model loaded (the encoder named here does not exist, the files neither)."""
from __future__ import annotations

import argparse

import pytest

from train.cli import _chain, build_parser, main
from train.cli.option_modes import (CHOOSE_MODES, CONSUMERS, EVALUATE_MODES, EVERY, SCORE_MODES,
                                    SENTENCES, SHARDS, WORDS, XMOVER, given_options, score_mode)

MISSING = "/nonexistent/crossalign-test-encoder"


def _verb_parser(argv: list[str]) -> argparse.ArgumentParser:
    """The parser of ``argv``'s verb (and task), found by name, nothing parsed."""
    return _chain(build_parser(argv), argparse.Namespace(
        verb=argv[0], task=argv[1] if len(argv) > 1 else None))[-1]


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each option's action by dest (its first long spelling), hidden old names left out."""
    out = {}
    for action in parser._actions:
        if not action.option_strings or action.dest == "help" or action.help == argparse.SUPPRESS:
            continue
        out.setdefault(action.dest, action)
    return out


def _value(action: argparse.Action) -> list[str]:
    """A spelling of the option with a value its parser accepts."""
    flag = next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])
    if action.nargs == 0:
        return [flag]
    if action.choices:
        return [flag, sorted(map(str, action.choices))[-1]]
    if action.type is int:
        return [flag, "1"]
    if action.type is float:
        return [flag, "0.5"]
    return [flag, "use=1" if action.dest in ("term", "term_weights") else "x"]


@pytest.mark.parametrize("argv, table", [
    (["score"], SCORE_MODES), (["choose"], CHOOSE_MODES),
    (["evaluate", "wmt17"], EVALUATE_MODES), (["evaluate", "mlqe"], EVALUATE_MODES),
    (["evaluate", "eval4nlp"], EVALUATE_MODES), (["evaluate", "rfeval"], EVALUATE_MODES)])
def test_every_option_of_the_verb_has_an_entry_in_the_option_table(argv, table):
    missing = sorted(set(_options(_verb_parser(argv))) - set(table))
    assert not missing, f"{' '.join(argv)}: options with no modes declared: {missing}"


SCORE_SELECT = {XMOVER: ["--src", "s.txt", "--hyp", "h.txt"],
                SHARDS: ["--pairs-file", "p.tsv"],
                WORDS: ["--src", "s.txt", "--hyp", "h.txt", "--words"],
                **{m: ["--metric", m, "--src", "s.txt", "--hyp", "h.txt"] for m in CONSUMERS}}


def _refused(capsys, argv: list[str], flag: str) -> str:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert flag in err and "is not used by" in err, err
    return err


def test_score_refuses_every_option_the_chosen_mode_ignores(capsys):
    options = _options(_verb_parser(["score"]))
    walked = 0
    for mode, select in SCORE_SELECT.items():
        for dest, modes in SCORE_MODES.items():
            if modes == EVERY or mode in modes or dest not in options:
                continue
            words = _value(options[dest])
            argv = ["score", "--encoder", MISSING, *select, *words]
            parser = build_parser(argv)
            args, _ = parser.parse_known_args(argv)
            if score_mode(args) != mode:  # the option itself chooses another mode
                continue
            err = _refused(capsys, argv, words[0])
            assert (f"--metric {mode}" if mode in CONSUMERS else
                    {XMOVER: "XMoverScore", SHARDS: "a run in shards",
                     WORDS: "word scores"}[mode]) in err, err
            walked += 1
    assert walked > 100  # every mode met most of the options of the others


@pytest.mark.parametrize("mode, select", [(SENTENCES, ["--sentences"]), (WORDS, ["--words"])])
def test_evaluate_refuses_every_option_the_chosen_mode_ignores(capsys, mode, select):
    options = _options(_verb_parser(["evaluate", "eval4nlp"]))
    walked = 0
    for dest, modes in EVALUATE_MODES.items():
        if modes == EVERY or mode in modes or dest not in options:
            continue
        words = _value(options[dest])
        _refused(capsys, ["evaluate", "eval4nlp", "--data", "/nonexistent", "--encoder", MISSING,
                          *select, *words], words[0])
        walked += 1
    assert walked >= 2


@pytest.mark.parametrize("argv, flag", [
    (["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", "--seed", "3"], "--seed"),
    (["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", "--bootstrap", "9"], "--bootstrap"),
    (["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", "--public-gbdd"], "--public-gbdd"),
    (["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", "--idf-hyp", "c.txt"], "--idf-hyp"),
    (["choose", "--dev", "mlqe", "--candidates", MISSING, "--out", "o", "--lm-weights", "0.1"],
     "--lm-weights"),
])
def test_an_option_that_means_something_only_beside_another_is_refused_alone(capsys, argv, flag):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag} is used only with" in err, err


@pytest.mark.parametrize("extra, flag", [
    (["--metric", "moverscore-v2", "--mapping", "no-such.BAM"], "--mapping"),
    (["--metric", "moverscore-v1", "--prec", "bf16"], "--prec"),  # an abbreviation
    (["--metric", "baryscore", "--precision", "bf16"], "--precision"),
    (["--metric", "bertscore", "--formula", "2020"], "--formula"),
    (["--metric", "sentsim", "--version", "2020"], "--version"),  # the formula's old name
    (["--metric", "moverscore-v2", "--lm-weight", "0.1"], "--lm-weight"),
    (["--metric", "baryscore", "--ngram", "2"], "--ngram"),
    (["--metric", "bertscore", "--lowercase"], "--lowercase"),
    (["--metric", "moverscore-v1", "--last-layers", "3"], "--last-layers"),
    (["--metric", "moverscore-v2", "--setting", "none"], "--setting"),
    (["--metric", "baryscore", "--read", "written"], "--read"),
    (["--lowercase"], "--lowercase"), (["--lower"], "--lower"),
    (["--punctuation", "drop"], "--punctuation"), (["--preprocessing", "moverscore-v1"],
                                                   "--preprocessing"),
    (["--last-layers", "2"], "--last-layers"),
    (["--sentence-term", "no-such-term"], "--sentence-term"),
    (["--shard-size", "10"], "--shard-size"),
])
def test_the_audit_cases_are_refused_naming_the_option_before_anything_is_read(
        capsys, extra, flag):
    _refused(capsys, ["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", *extra], flag)


def test_a_mapping_with_another_metric_says_how_to_give_it(capsys):
    err = _refused(capsys, ["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", "--metric",
                            "moverscore-v2", "--mapping", "x.BAM"], "--mapping")
    assert "crossalign export" in err and "--encoder EXPORT" in err


def test_given_options_are_read_by_name_abbreviation_and_equals_sign_never_from_values():
    argv = ["score", "--encoder", "enc", "--src=s", "--hyp", "-", "--lower", "--layer", "-1"]
    parser = build_parser(argv)
    args, _ = parser.parse_known_args(argv)
    given = given_options(_chain(parser, args), argv)
    assert set(given) == {"encoder", "src", "hyp", "lowercase", "layer"}
    assert given["lowercase"] == "--lower" and given["src"] == "--src"


def test_an_option_a_mode_uses_is_not_refused(capsys):
    for extra in (["--metric", "moverscore-v1", "--lowercase", "--ngram", "2"],
                  ["--metric", "baryscore", "--last-layers", "2"],
                  ["--metric", "sentsim", "--sentence-term", "use", "--layer", "1"],
                  ["--xmover-weight", "0.5", "--jobs", "1"]):
        code = main(["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", *extra])
        err = capsys.readouterr().err
        assert code == 2 and "is not used by" not in err, err  # refused later: no such file


@pytest.mark.parametrize("argv, message", [
    (["score", "--encoder", MISSING, "--encoder", "other", "--src", "s", "--hyp", "h"],
     "--encoder is given twice: give it once"),
    (["score", "--encoder", MISSING, "--src", "s", "--hyp", "h", "--formula", "2020",
      "--version", "2022"], "--version is given twice (also as --formula)"),
    (["evaluate", "wmt17", "--encoder", MISSING, "--lm-weight", "0.1", "--lm-weight", "0.2"],
     "--lm-weight is given twice"),
    (["choose", "--dev", "mlqe", "--candidates", MISSING, "--out", "o", "--candidates", "x"],
     "--candidates is given twice: give it once, with all its values"),
])
def test_an_option_given_twice_is_refused_not_overwritten(capsys, argv, message):
    """argparse keeps an option's last value: the first would be dropped without a word."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_repeatable_option_keeps_every_value():
    argv = ["evaluate", "wmt17", "--row", "a=x", "--row", "b=y", "c=z", "--term", "use=1",
            "--term", "length=2"]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    assert args.row == ["a=x", "b=y", "c=z"] and args.term == ["use=1", "length=2"]
    assert not hasattr(args, "_options_given")
