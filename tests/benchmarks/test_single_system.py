"""The single-system benchmark's choice on dev: it picks the map, LM and sentence weights with
the best average Pearson over the to-English dev pairs, and the rows it reports are built
from that choice."""
import numpy as np

from alignment.judgments.segments import JudgedSegments
from benchmarks.single_system import TO_ENGLISH_DEV, choose, rows_for


def _toy(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    lp = [p for p in TO_ENGLISH_DEV for _ in range(n)]
    human = rng.normal(size=len(lp))
    segs = JudgedSegments(lp, ["s"] * len(lp), ["m"] * len(lp), human)
    feats = {"unmapped": 0.01 * rng.normal(size=len(lp)), "LM alone": rng.normal(size=len(lp)),
             "sentence (no map)": rng.normal(size=len(lp)),
             "centre:e5:1000": rng.normal(size=len(lp)),
             "orthogonal:e5:1000": human + 0.5 * rng.normal(size=len(lp))}
    return segs, feats


def test_the_choice_on_dev_takes_the_map_that_agrees_with_people():
    segs, feats = _toy()
    choice = choose(segs, feats)
    assert choice["map"] == "orthogonal:e5:1000" == choice["map_alone"]
    assert choice["sentence"] > 0 and choice["lm"] == 0.0 and choice["token"] == "unmapped"
    assert choice["dev"] > choice["alone"]["centre:e5:1000"] + 0.5
    rows = {r.label: r.scores for r in rows_for({**feats, "centre:e5:4000": feats["centre:e5:1000"],
                                                 "orthogonal:e5:4000": feats["orthogonal:e5:1000"]},
                                                choice, [1000, 4000], True)}
    chosen = next(k for k in rows if k.endswith("(chosen on dev)"))
    np.testing.assert_allclose(rows[chosen], feats["unmapped"] + choice["sentence"] * feats[choice["map"]])
    assert "sentence map alone (orthogonal:e5:4000)" in rows
    # from English no row adds the English LM
    assert not any("LM" in k.split("(")[0] for k in (r.label for r in rows_for(
        {**feats, "centre:e5:4000": feats["centre:e5:1000"]}, choice, [1000], False)))
