"""The every-direction benchmark's rows: each is the setting its label names, combined from the
same per-segment term values (the shipped setting first, the data's baselines last)."""
import numpy as np

from alignment.judgments.segments import JudgedSegments
from benchmarks.every_direction import BEFORE_SRC, ENGLISH_LM, GEMMA, SOURCE_WEIGHT, rows_for


def _values(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {k: rng.normal(size=n) for k in ("xmover", "sentence", "gemma-given-source", "gemma-source-alone",
                                            "use", GEMMA, ENGLISH_LM)}


def test_from_english_rows_are_the_chosen_weights_of_the_same_values():
    v = _values(10)
    data = JudgedSegments(["en-de"] * 10, ["s"] * 10, ["m"] * 10, np.zeros(10),
                          baselines={"model_score": np.arange(10.0)})
    rows = {r.label: r for r in rows_for("MLQE-PE test, from English", v, data)}
    first = next(iter(rows))
    assert first.startswith("sentence map alone")
    np.testing.assert_allclose(rows[first].scores, v["sentence"])
    chosen = next(r for k, r in rows.items() if k.startswith("chosen on dev"))
    np.testing.assert_allclose(chosen.scores, 0.05 * v[GEMMA] + 0.5 * v["sentence"]
                               + 0.02 * v["gemma-given-source"])
    assert "--lm gemma3-270m" in chosen.signature and "--term gemma-given-source=0.02" in chosen.signature
    before = next(r for k, r in rows.items() if k.startswith("shipped before"))
    np.testing.assert_allclose(before.scores, 0.05 * v[GEMMA] + 0.1 * v["use"]
                               + 0.05 * v["gemma-given-source"])
    assert list(rows)[-1] == "MT system's log-probability (glass-box)"


def test_to_english_rows_add_the_source_conditioned_term_to_the_shipped_setting():
    v = _values(10, 1)
    data = JudgedSegments(["de-en"] * 10, ["s"] * 10, ["m"] * 10, np.zeros(10))
    rows = rows_for("WMT17 test, to English", v, data)
    before = v["xmover"] + 0.01 * v[ENGLISH_LM] + 0.5 * v["sentence"]
    assert rows[0].label.startswith("shipped before: center > clp")
    np.testing.assert_allclose(rows[0].scores, before)
    by_label = {r.label: r for r in rows}
    np.testing.assert_allclose(rows[-4].scores, before + BEFORE_SRC * v["gemma-given-source"])
    assert rows[-3].label.startswith("chosen on dev:")
    shipped = v["xmover"] + v["sentence"] + 0.05 * v["gemma-given-source"]
    np.testing.assert_allclose(rows[-3].scores, shipped)
    np.testing.assert_allclose(by_label["Gemma LM of the source alone"].scores, v["gemma-source-alone"])
    assert rows[-1].label.endswith(f"⊕ {SOURCE_WEIGHT:g} Gemma LM of the source (shipped)")
    np.testing.assert_allclose(rows[-1].scores, shipped + SOURCE_WEIGHT * v["gemma-source-alone"])
    assert f"--term gemma-source-alone={SOURCE_WEIGHT:g}" in rows[-1].signature
    np.testing.assert_allclose(rows[1].scores, v[GEMMA])  # with Gemma values: its row


def test_written_rows_combine_the_values_of_the_outputs_read_as_written():
    given, written = _values(10, 2), _values(10, 3)
    data = JudgedSegments(["de-en"] * 10, ["s"] * 10, ["m"] * 10, np.zeros(10))
    rows = {r.label: r for r in rows_for("WMT17 test, to English", given, data, written)}
    read = next(r for k, r in rows.items() if k.endswith("⊕ 0.05 Gemma given source, read "
                                                          "as written"))
    np.testing.assert_allclose(read.scores, written["xmover"] + written["sentence"]
                               + 0.05 * written["gemma-given-source"])
    assert read.signature.endswith("--read written")
    np.testing.assert_allclose(rows["SmolLM2 LM alone, outputs as given"].scores, given[ENGLISH_LM])
    np.testing.assert_allclose(rows["SmolLM2 LM alone, read as written"].scores,
                               written[ENGLISH_LM])
    assert "--read" not in rows["SmolLM2 LM alone, outputs as given"].signature
