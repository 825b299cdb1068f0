"""The total-log-probability benchmark's rows: the setting shipped before the total first, the
chosen total beside it, and the output's length recovered from the total over the mean."""
import numpy as np

from alignment.judgments.segments import JudgedSegments
from benchmarks.total_log_probability import BEFORE, CHOSEN, SHIPPED, TOTAL, rows_for


def test_rows_weigh_the_same_values_as_their_labels_say():
    rng = np.random.default_rng(0)
    tokens = rng.integers(1, 30, size=12).astype(float)
    mean = -rng.uniform(0.5, 4.0, size=12)
    v = {"xmover": rng.normal(size=12), "sentence": rng.normal(size=12),
         "gemma-given-source": mean, "gemma-source-alone": rng.normal(size=12), TOTAL: mean * tokens}
    data = JudgedSegments(["de-en"] * 12, ["s"] * 12, ["m"] * 12, np.zeros(12),
                          baselines={"sentbleu": np.arange(12.0)})
    rows = rows_for(v, data)
    before = v["xmover"] + v["sentence"] + 0.05 * mean + 0.05 * v["gemma-source-alone"]
    assert TOTAL not in dict(BEFORE.weights) and SHIPPED.weight(TOTAL) == CHOSEN > 0
    np.testing.assert_allclose(rows[0].scores, before)
    np.testing.assert_allclose(rows[1].scores, before + CHOSEN * mean * tokens)
    assert f"--term {TOTAL}={CHOSEN:g}" in rows[1].signature and TOTAL not in rows[0].signature
    by_label = {r.label: r for r in rows}
    np.testing.assert_allclose(by_label["fewer output tokens alone (−log Gemma tokens)"].scores,
                               -np.log1p(tokens))
    assert rows[-1].label == "SentBLEU (reads the reference)"
