"""An explicit --no-reuse stops all reuse in the process, the registered terms' own included;
without it, the terms keep their values."""
import argparse

from alignment.xmover import reuse
from train.cli.scorer_options import add_speed_options, speed_options


def parse(flags: list[str], reuse_default: bool = True) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_speed_options(p, reuse_default=reuse_default)
    return p.parse_args(flags)


def test_an_explicit_no_reuse_stops_the_terms_reuse(monkeypatch):
    monkeypatch.setattr(reuse, "_STOPPED", False)
    assert speed_options(parse([])) is not None and reuse.default_reuse() is not None
    args = parse(["--no-reuse"])
    assert args.reuse is False and args.no_reuse is True
    assert speed_options(args) is None
    assert reuse.default_reuse() is None  # what the Gemma terms ask


def test_a_later_reuse_flag_wins_over_an_earlier_no_reuse(monkeypatch):
    monkeypatch.setattr(reuse, "_STOPPED", False)
    assert speed_options(parse(["--no-reuse", "--reuse"])) is not None
    assert reuse.default_reuse() is not None


def test_reuse_off_by_default_leaves_the_terms_reuse_on(monkeypatch):
    monkeypatch.setattr(reuse, "_STOPPED", False)
    assert speed_options(parse([], reuse_default=False)) is None
    assert reuse.default_reuse() is not None
