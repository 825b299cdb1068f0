"""A scorer's default precision: bf16 where the device multiplies it natively, else fp32;
``$CROSSALIGN_PRECISION`` pins it and an option given wins; an export's fp32 setting runs as
the device allows without counting as an override; the signature says the precision used."""
from __future__ import annotations

import json
import warnings

import pytest
import torch

from alignment.encoding import precision as precision_module
from alignment.encoding.precision import EmulatedPrecision, automatic_precision
from alignment.errors import InputError
from alignment.signature import parse_signature
from alignment.terms import Runtime, Setting
from alignment.xmover import XMoverScorer
from alignment.xmover.configuration import ScoringConfig


@pytest.fixture
def native(monkeypatch):
    """This CPU as one that multiplies bf16 natively (or not), the pin taken away."""
    monkeypatch.delenv("CROSSALIGN_PRECISION", raising=False)
    warnings.simplefilter("ignore", EmulatedPrecision)

    def set_native(value: bool) -> None:
        monkeypatch.setattr(precision_module, "cpu_has_bf16", lambda: value)
    return set_native


def _scorer(path, **given) -> XMoverScorer:
    return XMoverScorer(str(path), layer=2, **given)


def test_a_cpu_with_native_bf16_scores_in_bf16_and_signs_it(tiny_bert, native):
    native(True)
    scorer = _scorer(tiny_bert)
    assert scorer.precision == "bf16"
    assert next(scorer.encoder.model.parameters()).dtype == torch.bfloat16
    assert parse_signature(scorer.signature)["prec"] == "bf16"


def test_a_cpu_without_it_scores_in_fp32(tiny_bert, native):
    native(False)
    scorer = _scorer(tiny_bert)
    assert scorer.precision == "fp32" and "prec" not in parse_signature(scorer.signature)


@pytest.mark.parametrize("pinned, expected", [("fp32", "fp32"), ("bf16", "bf16"),
                                              ("auto", "bf16"), ("", "bf16")])
def test_the_environment_pins_the_default(native, monkeypatch, pinned, expected):
    native(True)
    monkeypatch.setenv("CROSSALIGN_PRECISION", pinned)
    assert automatic_precision("cpu") == expected


def test_a_bad_pin_is_refused_naming_the_variable(native, monkeypatch):
    native(True)
    monkeypatch.setenv("CROSSALIGN_PRECISION", "int4")
    with pytest.raises(InputError, match="CROSSALIGN_PRECISION"):
        automatic_precision("cpu")


@pytest.mark.parametrize("asked", ["fp32", "int8"])
def test_a_precision_asked_for_wins_over_the_default(tiny_bert, native, asked):
    native(True)
    assert _scorer(tiny_bert, runtime=Runtime.of(precision=asked)).precision == asked
    assert _scorer(tiny_bert, runtime=Runtime.of(precision="auto")).precision == "bf16"


def test_an_fp32_setting_runs_as_the_device_allows_and_is_not_an_override(tiny_bert, native):
    native(True)
    setting = ScoringConfig.of(Setting.of(xmover=1.0), precision="fp32")
    scorer = _scorer(tiny_bert, setting=setting)
    fields = parse_signature(scorer.signature)
    assert scorer.precision == "bf16" and fields["prec"] == "bf16" and "over" not in fields
    pinned = _scorer(tiny_bert, setting=setting, runtime=Runtime.of(precision="fp32"))
    assert pinned.precision == "fp32" and "over" not in parse_signature(pinned.signature)
    native(False)
    kept = _scorer(tiny_bert, setting=ScoringConfig.of(Setting.of(xmover=1.0), precision="bf16"))
    assert kept.precision == "bf16"  # a setting that names bf16 keeps it


def test_the_command_line_default_is_automatic_and_fp32_pins_it(tiny_bert, native, tmp_path,
                                                                capsys):
    from train.cli import main

    native(True)
    src, hyp = tmp_path / "s.txt", tmp_path / "h.txt"
    src.write_text("la casa es grande .\n")
    hyp.write_text("the house is big .\n")
    common = ["score", "--encoder", str(tiny_bert), "--layer", "2", "--src", str(src),
              "--hyp", str(hyp), "--format", "json", "-q"]
    signatures = []
    for extra in ([], ["--precision", "fp32"]):
        main(common + extra)
        signatures.append(parse_signature(json.loads(capsys.readouterr().out)["signature"]))
    assert signatures[0]["prec"] == "bf16" and "prec" not in signatures[1]
