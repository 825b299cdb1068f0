"""The pooled Pearson (every pair's segments together, as WMT20's multilingual track ranks):
a score on one scale for every pair wins it even where each pair's own Pearson is the same;
its interval joins the pairs' own resamples; a table over one pair has no pooled column."""
from __future__ import annotations

import numpy as np
import pytest

from alignment.evaluation.correlation import pearson
from alignment.judgments.agreement import Row, format_agreement, segment_agreement
from alignment.judgments.segments import JudgedSegments


def _two_pairs(n: int = 200) -> tuple[JudgedSegments, np.ndarray]:
    rng = np.random.default_rng(3)
    human = np.concatenate([rng.normal(0.5, 1.0, n), rng.normal(-0.5, 1.0, n)])
    lp = ["ro-en"] * n + ["ne-en"] * n
    data = JudgedSegments(lp, ["s"] * 2 * n, ["t"] * 2 * n, human)
    return data, human + rng.normal(0.0, 0.8, 2 * n)


def test_one_scale_for_every_pair_wins_the_pooled_pearson_not_the_pairs():
    data, metric = _two_pairs()
    shifted = metric + np.where(np.asarray(data.lp) == "ne-en", 3.0, 0.0)  # another scale a pair
    m = segment_agreement(data, [Row("one scale", metric, ""), Row("two scales", shifted, "")],
                          resamples=300)
    for pair in ("ro-en", "ne-en", "avg"):
        assert m[f"two scales/{pair}/pearson"] == pytest.approx(m[f"one scale/{pair}/pearson"])
    assert m["one scale/pooled/pearson"] == pytest.approx(pearson(metric, data.human))
    assert m["two scales/pooled/pearson"] < m["one scale/pooled/pearson"] - 0.2
    assert m["two scales/pooled/diff_hi"] < 0  # the paired interval says so
    lo, hi = m["one scale/pooled/pearson_lo"], m["one scale/pooled/pearson_hi"]
    assert lo < m["one scale/pooled/pearson"] < hi and hi - lo < 0.2
    assert m["one scale/pooled/segments"] == len(data)


def test_the_table_has_a_pooled_column_only_over_several_pairs():
    data, metric = _two_pairs(50)
    rows = [Row("metric", metric, "")]
    both = segment_agreement(data, rows, resamples=50)
    assert "pooled" in format_agreement(both, ["metric"], data.pairs, "t").splitlines()[1]
    one = data.subset(np.flatnonzero(np.asarray(data.lp) == "ro-en"))
    alone = segment_agreement(one, [Row("metric", metric[:50], "")], resamples=50)
    assert not any(k.startswith("metric/pooled") for k in alone)
    assert "pooled" not in format_agreement(alone, ["metric"], one.pairs, "t")
