"""An explicit --no-reuse stops all reuse of the run it is given to, the slow terms' kept values
included; without it, the terms keep their values. Nothing of it outlasts the run."""
import argparse

from train.cli.runtime_options import add_runtime_options, keep_values, runtime_of, speed_options


def parse(flags: list[str], reuse_default: bool = True) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_runtime_options(p, reuse_default=reuse_default)
    return p.parse_args(flags)


def test_an_explicit_no_reuse_stops_the_terms_kept_values():
    assert speed_options(parse([])) is not None and keep_values(parse([]))
    args = parse(["--no-reuse"])
    assert args.reuse is False and args.no_reuse is True
    assert speed_options(args) is None
    cache = runtime_of(args).cache
    assert cache.folder is None and cache.values is None  # what the Gemma terms keep in
    # the next run, without the flag, keeps them again: no state outlasts a run
    assert runtime_of(parse([])).cache.values is not None


def test_a_later_reuse_flag_wins_over_an_earlier_no_reuse():
    args = parse(["--no-reuse", "--reuse"])
    assert speed_options(args) is not None and runtime_of(args).cache.values is not None


def test_reuse_off_by_default_leaves_the_terms_kept_values_on():
    args = parse([], reuse_default=False)
    assert speed_options(args) is None and runtime_of(args).cache.values is not None
