"""A calibration (scale × score + offset, least squares on judged segments) puts a setting's
scores on people's scale: fitted and refused as it should be, kept in ``scoring.json`` and read
back as data, applied by the scorer to the setting it fits and signed ``cal:``, left out (with
a note) where an option changes the setting."""
from __future__ import annotations

import json

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.evaluation.correlation import pearson
from alignment.signature import parse_signature
from alignment.terms import Runtime, Setting
from alignment.xmover import XMoverScorer
from alignment.xmover.calibration import Calibration
from alignment.xmover.configuration import ScoringConfig
from tests.conftest import EN, ES


def test_the_fit_recovers_the_map_and_keeps_the_order():
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    human = 2.5 * x - 0.7 + rng.normal(0, 0.01, 300)
    cal = Calibration.fit(x, human, "DA z-score", "toy dev")
    assert cal.scale == pytest.approx(2.5, abs=0.01) and cal.offset == pytest.approx(-0.7, abs=0.01)
    y = cal.apply(x)
    assert pearson(y, human) == pytest.approx(pearson(x, human))
    assert y.mean() == pytest.approx(human.mean()) and cal.segments == 300


@pytest.mark.parametrize("scores, human, message", [
    ([3.0, 2.0, 1.0], [1.0, 2.0, 3.0], "do not rise with people's"),
    ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], "do not rise with people's"),
    ([1.0, 2.0], [1.0, 2.0], ">= 3 finite scores"),
    ([1.0, np.nan, 2.0], [1.0, 2.0, 3.0], ">= 3 finite scores"),
])
def test_a_calibration_that_would_reverse_or_flatten_the_scores_is_refused(scores, human,
                                                                          message):
    with pytest.raises(InputError, match=message):
        Calibration.fit(np.array(scores), np.array(human), "z", "dev")


def _config(cal: Calibration | None) -> ScoringConfig:
    return ScoringConfig.of(Setting.of(xmover=1.0), calibration=cal)


def test_it_reads_back_from_scoring_json_and_a_damaged_one_is_refused_naming_the_file(tmp_path):
    cal = Calibration(1.5, -0.25, "MLQE-PE DA z-score", "mlqe dev ro-en", 1000)
    _config(cal).write(tmp_path)
    assert ScoringConfig.load(tmp_path).calibration == cal
    raw = json.loads((tmp_path / "scoring.json").read_text())
    for bad in ({**raw["calibration"], "scale": -1.0}, {**raw["calibration"], "extra": 1},
                {**raw["calibration"], "segments": True}, "1.5"):
        (tmp_path / "scoring.json").write_text(json.dumps({**raw, "calibration": bad}))
        with pytest.raises(InputError, match="scoring.json: 'calibration'"):
            ScoringConfig.load(tmp_path)


def test_the_scorer_applies_it_to_its_own_setting_and_signs_it(tiny_bert):
    cal = Calibration(2.0, -1.0, "DA z-score", "toy dev", 10)
    plain = XMoverScorer(str(tiny_bert), layer=2, setting=_config(None)).score(ES, EN).final
    scorer = XMoverScorer(str(tiny_bert), layer=2, setting=_config(cal))
    np.testing.assert_allclose(scorer.score(ES, EN).final, 2.0 * plain - 1.0, rtol=1e-12)
    assert parse_signature(scorer.signature)["cal"] == cal.tag()
    assert cal.tag().startswith("DA-z-score#")
    assert Calibration(2.0, -0.5, "DA z-score", "toy dev", 10).tag() != cal.tag()
    other = scorer.signed_as(Setting.of(xmover=1.0, sentence=0.5))
    assert "cal" not in parse_signature(other)  # another setting is not calibrated


def test_an_option_that_changes_the_setting_leaves_it_out_with_a_note(tiny_bert):
    cal = Calibration(2.0, -1.0, "DA z-score", "toy dev", 10)
    changed = XMoverScorer(str(tiny_bert), layer=2, setting=_config(cal),
                           weights={"xmover": 0.5})
    assert changed.calibration is None and "cal" not in parse_signature(changed.signature)
    assert any("not calibrated" in n and "xmover-weight" in n for n in changed.notes)
    other_precision = XMoverScorer(str(tiny_bert), layer=2, setting=_config(cal),
                                   runtime=Runtime.of(precision="bf16"))
    assert other_precision.calibration == cal  # the arithmetic, not the setting
