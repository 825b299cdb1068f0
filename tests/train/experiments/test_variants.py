import json

import pytest

from alignment.errors import InputError
from alignment.mappings import parse_method, parse_methods
from train.cli import main
from train.fitting.fitters import check_settings


def test_variant_overrides_are_typed():
    assert parse_method("clp").overrides == {}
    spec = parse_method("realnvp:nll_weight=0, dual=false,transforms=8")
    assert spec.name == "realnvp" and spec.overrides == {"nll_weight": 0, "dual": False, "transforms": 8}
    assert spec.label == "realnvp:nll_weight=0,dual=false,transforms=8"


@pytest.mark.parametrize("spec, message", [
    ("realnvp:depth=3", "unknown setting 'depth'"),
    ("fcnn:transforms=3", "unknown setting 'transforms'"),  # a Real-NVP setting means nothing to FCNN
    ("realnvp:nll_weight", "expected key=value"),
    ("clp:lr=1", "only trained methods"),
    ("clpp", "unknown method 'clpp'"),
])
def test_bad_variants_are_named(spec, message):
    with pytest.raises(InputError, match=message):
        check_settings(parse_method(spec))


def test_a_listed_twice_variant_is_refused_in_any_spelling():
    with pytest.raises(InputError, match="twice"):
        parse_methods(["fcnn", "fcnn"])
    with pytest.raises(InputError, match="twice"):
        parse_methods(["center > clp", "center_clp"])


def test_simulate_runs_variants_side_by_side_and_a_typo_fails_before_training(tmp_path, capsys):
    assert main(["simulate", "--t", "3", "--k", "10", "--eps", "0", "--seeds", "0", "--methods",
                 "fcnn", "fcnn:hidden=2,lr=0", "--epochs", "3", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert set(metrics) == {"fcnn/t3/k10/eps0", "fcnn:hidden=2,lr=0/t3/k10/eps0",
                            "true map (ceiling)/t3/k10/eps0"}
    assert metrics["fcnn/t3/k10/eps0"] > metrics["fcnn:hidden=2,lr=0/t3/k10/eps0"]
    assert main(["simulate", "--methods", "fcnn:hiden=2", "--out", str(tmp_path / "b")]) == 2
    assert "unknown setting 'hiden'" in capsys.readouterr().err and not (tmp_path / "b").exists()
