"""One catalogue: every named lookup in ``alignment/`` and ``train/`` goes through
``alignment.catalogue`` (a ``Registry``, or ``check_choice`` for a fixed set of words), so an
unknown name reads the same everywhere, a former name works with one kind of note, and a name
is registered once."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from alignment.catalogue import FormerNameWarning, Registry
from alignment.errors import InputError

ROOT = Path(__file__).parents[1]
OWN_WORDING = re.compile(r"unknown |must be one of|\(known:|\(choose ")
REGISTRIES = [
    ("alignment.mappings.registry", "METHODS"), ("alignment.mappings.registry", "PRESETS"),
    ("alignment.mappings.base", "MAPPINGS"), ("train.fitting.fitters", "FITTERS"),
    ("train.experiments.unsupervised_routes", "ROUTES"),
    ("alignment.unsupervised.constraints", "CONSTRAINTS"), ("alignment.xmover.versions", "VERSIONS"),
    ("alignment.unsupervised.objectives", "OBJECTIVES"),
    ("alignment.evaluation.criteria", "CRITERIA"), ("train.experiments.shared", "MEASURES"),
    ("train.experiments.testbed", "PROTOCOLS"), ("alignment.data.word_align", "SYMMETRISERS"),
    ("alignment.encoding.hub", "PACKAGED_ENCODERS"), ("alignment.xmover.lm", "PACKAGED_LMS"),
    ("alignment.evaluation.metrics", "METRICS"), ("alignment.judgments.benchmark", "BENCHMARKS"),
    ("train.cli.fit", "MOVED_CLASSES"), ("alignment.terms", "TERMS"),
    ("alignment.terms", "WORD_TERMS")]


def _modules():
    for package in ("alignment", "train"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name != "catalogue.py":
                yield path, ast.parse(path.read_text())


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v) for v in node.values)
    return ""


def _catalogue_error(node: ast.Raise) -> bool:
    """``raise unknown_name(...)``: the catalogue's own error, worded once."""
    return isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", "") == "unknown_name"


def test_no_module_words_its_own_unknown_name_error():
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                if OWN_WORDING.search(_text(node.exc.args[0])):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"use alignment.catalogue (Registry, check_choice, unknown_name): {found}"


def test_no_module_level_name_table_has_a_lookup_of_its_own():
    """A module-level dict of names, checked with ``not in`` before a raise of its own, is a
    registry written by hand; and no alias table lives outside the registry."""
    found = []
    for path, tree in _modules():
        tables = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(t, ast.Name) and t.id.isupper()
                  and isinstance(node.value, (ast.Dict, ast.DictComp))}
        found += [f"{path.relative_to(ROOT)}: {name}" for name in tables
                  if "ALIAS" in name or name.startswith("OLD_")]
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) \
                    and isinstance(node.test.ops[0], ast.NotIn) \
                    and isinstance(node.test.comparators[0], ast.Name) \
                    and node.test.comparators[0].id in tables \
                    and any(isinstance(n, ast.Raise) and not _catalogue_error(n)
                            for n in node.body):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


@pytest.mark.parametrize("module, name", REGISTRIES, ids=[n for _, n in REGISTRIES])
def test_every_named_lookup_is_a_registry(module, name):
    registry = getattr(importlib.import_module(module), name)
    assert isinstance(registry, Registry) and len(registry) > 0


def _lookups():
    from alignment.catalogue import check_choice
    from alignment.encoding.precision import check_precision
    from alignment.evaluation.metrics import get_metric
    from alignment.judgments import get_benchmark
    from alignment.mappings import get_method, parse_method
    from alignment.unsupervised.constraints import get_constraint
    from alignment.xmover.versions import get_version
    from train.experiments.testbed import protocol_name

    return [(get_method, "procrustez", "method", "procrustes"),
            (parse_method, "center > clpp", "method", "clp"),
            (get_metric, "xmoverscor", "metric", "xmoverscore"),
            (get_benchmark, "wmt71", "benchmark", None),
            (get_version, "2021", "version", None),
            (get_constraint, "grahp", "constraint", "graph"),
            (lambda v: check_precision(v, "cpu"), "int4", "precision", None),
            (protocol_name, "disjiont", "protocol", "disjoint"),
            (lambda v: check_choice(v, ("a", "b"), "word"), "c", "word", None)]


def test_an_unknown_name_reads_the_same_everywhere():
    for lookup, bad, kind, close in _lookups():
        with pytest.raises(InputError) as err:
            lookup(bad)
        message = str(err.value)
        assert re.search(rf"unknown {kind} '{re.escape(bad.split('> ')[-1])}' \(known: [^)]+\)",
                         message), message
        if close:
            assert f"did you mean {close}" in message, message


def test_a_former_name_works_with_a_note_and_a_name_is_registered_once():
    from alignment.mappings import register_method
    from alignment.mappings.registry import METHODS
    from train.experiments.testbed import protocol_name

    with pytest.warns(FormerNameWarning, match="'shuffled' is now 'comparable'"):
        assert protocol_name("shuffled") == "comparable"
    registry: Registry[int] = Registry("thing")
    registry.add("one", 1, aliases=["uno"])
    for name in ("one", "uno"):
        with pytest.raises(ValueError, match="already registered"):
            registry.add(name, 2)
    assert registry.lookup("uno") == 1 and list(registry) == ["one"]
    with pytest.raises(ValueError, match="already registered"):
        register_method(METHODS["clp"])
