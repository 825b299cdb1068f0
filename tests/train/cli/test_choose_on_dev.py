"""Choosing on dev is a verb: the library picks the known best setting on synthetic judgments,
and ``crossalign choose`` scores real candidates on a dev fixture end to end, writes the chosen
export with its card and grid, and refuses a test-only benchmark before anything is scored."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from alignment.errors import InputError
from alignment.judgments.segments import JudgedSegments
from alignment.judgments.dev_choice import choose_on_dev
from train.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures"


def _judged(n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    good, lm, sent = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    lp = ["de-en"] * (n // 2) + ["et-en"] * (n - n // 2)
    human = good + 0.5 * lm + 0.2 * sent
    data = JudgedSegments(lp, ["s"] * n, ["m"] * n, human)
    return data, {"noise": rng.normal(size=n), "good": good}, lm, sent


def test_the_setting_that_made_the_judgments_is_chosen():
    data, rows, lm, sent = _judged()
    picked = choose_on_dev(data, rows, lm, sent)
    assert (picked.chosen.row, picked.chosen.lm, picked.chosen.sentence) == ("good", 0.5, 0.2)
    assert picked.chosen.pearson == pytest.approx(1.0)
    assert picked.intervals["good"][0] > picked.intervals["noise"][1]  # clearly apart
    assert len(picked.grid) == 2 * 8 * 6 and picked.pairs == ("de-en", "et-en")
    without_lm = choose_on_dev(data, rows)  # no LM, no sentence term: the weight 0 alone
    assert len(without_lm.grid) == 2 and without_lm.chosen.row == "good"


def test_each_row_is_weighed_with_its_own_sentence_term_and_its_card_says_so():
    from alignment.judgments.dev_choice import card, chosen_config

    data, rows, lm, _ = _judged()
    rng = np.random.default_rng(1)
    own = {"noise": rng.normal(size=len(data)), "good": rng.normal(size=len(data))}
    data = JudgedSegments(data.lp, data.src, data.mt, rows["good"] + 0.5 * own["good"])
    picked = choose_on_dev(data, rows, None, own)
    assert (picked.chosen.row, picked.chosen.sentence) == ("good", 0.5)
    assert picked.chosen.pearson == pytest.approx(1.0)
    shared = choose_on_dev(data, rows, None, own["noise"])  # one term for all: not the maker
    assert shared.chosen.pearson < 0.99
    config = chosen_config(picked, "dev", None, {}, "")
    through_map = card("de-en", picked, config, "crossalign choose …", {}, "OUT", True)
    plain = card("de-en", picked, config, "crossalign choose …", {}, "OUT", False)
    assert "own sentence map" in through_map and "own sentence map" not in plain
    assert "crossalign score --encoder OUT --src SRC --hyp MT\n" in plain  # the name alone
    written = card("de-en", picked, chosen_config(picked, "dev", None, {"read": "written"}, ""),
                   "crossalign choose …", {}, "OUT", True)
    assert "--read written" in written and "--read" not in through_map  # how it was measured


@pytest.mark.parametrize("kwargs, message", [
    ({"lm_weights": (-1.0,)}, "finite and >= 0"),
    ({"rows": {}}, "no candidate rows"),
    ({"rows": {"short": np.zeros(3)}}, "3 scores for 60"),
])
def test_bad_grids_and_scores_are_refused(kwargs, message):
    data, rows, lm, sent = _judged()
    args = {"rows": rows, "lm": lm, "sentence": sent, **kwargs}
    with pytest.raises(InputError, match=message):
        choose_on_dev(data, **args)


@pytest.fixture
def mlqe_dev(tmp_path):
    out = tmp_path / "mlqe"
    assert main(["data", "mlqe", "--from", str(FIXTURES / "mlqe-clone"), "--out", str(out),
                 "--pairs", "ro-en", "--no-progress"]) == 0
    return out


def _ro_export(folder: Path, tiny_bert) -> Path:
    from alignment.encoding.encoder import load_encoder
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_remapped
    from alignment.mappings import fit_composition
    from alignment.mappings.moments import PairMoments

    torch.manual_seed(0)
    mapping = fit_composition(PairMoments.of(torch.randn(200, 32), torch.randn(200, 32)),
                              "center > clp")
    ident = load_encoder(str(tiny_bert), layer=1).identity()
    export_remapped(folder, mapping, DataProvenance(ident, "abc", 100, 200, "test", "ro", "en"))
    return folder


def _with_sentence_map(export: Path) -> Path:
    """The export with an orthogonal sentence map fitted on a few Spanish-English pairs
    (standing in for Romanian: the tiny encoder reads any text)."""
    from alignment.export.remapped import load_remapped
    from alignment.xmover.sentence_map import add_sentence_map, sentence_map_from_text
    from tests.conftest import EN, ES

    encoder = load_remapped(export).encoder
    add_sentence_map(export, sentence_map_from_text(encoder, ES, EN, "orthogonal", "ro", "en"))
    return export


@pytest.mark.filterwarnings("ignore:.*subword pieces", "ignore:.*longer than the LM's context")
def test_choose_writes_the_chosen_export_with_its_card_and_grid(tmp_path, mlqe_dev, tiny_bert,
                                                                 hub_models, capsys):
    from alignment.export.card import read_headline
    from alignment.export.remapped import load_remapped

    import tempfile

    export = _with_sentence_map(_ro_export(tmp_path / "clp", tiny_bert))
    out = tmp_path / "chosen"
    scratch = set(Path(tempfile.gettempdir()).glob("crossalign-identity-*"))
    assert main(["choose", "--dev", "mlqe", "--data", str(mlqe_dev), "--candidates",
                 str(tiny_bert), str(export), "--labels", "unmapped", "clp", "--layer", "1",
                 "--lm", hub_models["tiny-gpt2"], "--lm-weights", "0", "0.1",
                 "--sentence-weights", "0", "0.5", "--out", str(out), "--format", "json",
                 "-q"]) == 0
    printed = json.loads(capsys.readouterr().out)
    chosen = json.loads((out / "chosen.json").read_text())
    assert len(chosen["grid"]) == 2 * 2 * 2 and chosen["segments"] == 6
    best = max(s["pearson"] for s in chosen["grid"])
    assert chosen["chosen"]["pearson"] == best == printed["chosen"]["pearson"]
    assert chosen["command"].startswith("crossalign choose --dev mlqe")
    for row, (lo, hi) in chosen["intervals"].items():
        assert lo <= chosen["best"][row]["pearson"] <= hi
    assert {"unmapped", "clp", "LM"} <= set(chosen["signatures"])
    # each row's sentence term is the one `score` adds with it: through the clp export's map
    assert "map:orthogonal:ro>en" in chosen["signatures"]["sentence (clp)"]
    assert "map:" not in chosen["signatures"]["sentence (unmapped)"]
    headline = read_headline(out)
    assert headline.pearson == pytest.approx(best, abs=5e-4) and headline.on == "mlqe dev"
    assert headline.lo <= headline.pearson <= headline.hi
    assert headline.row.startswith(chosen["chosen"]["row"])
    assert f"crossalign score --encoder {out} --src SRC" in (out / "README.md").read_text()
    meta = json.loads((out / "remap.json").read_text())
    assert (meta["src_lang"], meta["tgt_lang"]) == ("ro", "en")
    expected = "identity" if chosen["chosen"]["row"] == "unmapped" else "center > clp"
    assert meta["mapping_type"] == expected
    assert load_remapped(out).signature == meta["signature"]
    assert set(Path(tempfile.gettempdir()).glob("crossalign-identity-*")) == scratch


def test_a_benchmark_without_dev_is_refused_before_scoring(tmp_path, capsys):
    assert main(["choose", "--dev", "wmt17", "--candidates", "nosuch-encoder", "--out",
                 str(tmp_path / "o")]) == 2
    assert "no dev split" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_max_per_pair_chooses_on_each_pairs_first_segments_and_the_card_says_so(
        tmp_path, mlqe_dev, tiny_bert, capsys):
    from alignment.export.card import read_headline

    args = ["choose", "--dev", "mlqe", "--data", str(mlqe_dev), "--candidates", str(tiny_bert),
            "--layer", "1", "--sentence-weights", "0", "1", "--format", "json", "-q"]
    assert main(args + ["--max-per-pair", "0", "--out", str(tmp_path / "none")]) == 2
    assert "parameter 'max-per-pair': must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
    assert main(args + ["--max-per-pair", "4", "--out", str(tmp_path / "four")]) == 0
    four = json.loads(capsys.readouterr().out)
    assert main(args + ["--out", str(tmp_path / "all")]) == 0
    every = json.loads(capsys.readouterr().out)
    assert four["segments"] == 4 < every["segments"]
    assert read_headline(tmp_path / "four").on == "mlqe dev, the first 4 segments of each pair"
    assert four["grid"] != every["grid"]  # chosen on fewer segments, other dev Pearsons


def _toy_length(sources: list[str], hypotheses: list[str], languages) -> np.ndarray:
    """A toy term: the output's length over its source's, in characters."""
    return np.array([len(h) / max(1, len(s)) for s, h in zip(sources, hypotheses)])


@pytest.fixture
def toy_term():
    from alignment.terms import TERMS, Term, register_term

    term = register_term(Term("toy-length", "toy length", "--term toy-length=W", (0.0, 1.0),
                              "the output's length over its source's", ident="toy-length-1",
                              compute=_toy_length))
    yield term
    TERMS.remove(term.name)


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_a_registered_term_is_scored_chosen_kept_in_the_export_and_scored_again(
        tmp_path, mlqe_dev, tiny_bert, toy_term, capsys, monkeypatch):
    """A toy term registered once: ``choose`` scores it (one scoring pass per candidate), writes
    the chosen weight into the export's scoring configuration, ``score --encoder OUT`` alone signs
    the card's headline row, and ``evaluate`` with only ``--encoder OUT`` gives its Pearson."""
    from alignment.export.card import read_headline
    from alignment.xmover.configuration import ScoringConfig
    from alignment.xmover.scorer import XMoverScorer

    passes = []
    original = XMoverScorer.score_systems
    monkeypatch.setattr(XMoverScorer, "score_systems",
                        lambda self, *a, **k: passes.append(1) or original(self, *a, **k))
    export = _ro_export(tmp_path / "clp", tiny_bert)
    out = tmp_path / "chosen"
    assert main(["choose", "--dev", "mlqe", "--data", str(mlqe_dev), "--candidates",
                 str(tiny_bert), str(export), "--labels", "unmapped", "clp", "--layer", "1",
                 "--sentence-weights", "0", "--term-weights", "toy-length=0,1", "--out", str(out),
                 "-q", "--no-reuse"]) == 0
    assert len(passes) == 2  # one scoring pass per candidate (one pair)
    chosen = json.loads((out / "chosen.json").read_text())
    assert {p["toy-length"] for p in chosen["grid"]} == {0.0, 1.0}
    config = ScoringConfig.load(out)
    weight = chosen["chosen"]["toy-length"]
    assert config.setting.weight("toy-length") == weight
    assert dict(config.identities).get("toy-length") == ("toy-length-1" if weight else None)
    headline = read_headline(out)
    capsys.readouterr()
    src, hyp = tmp_path / "src.ro", tmp_path / "hyp.en"
    src.write_text("Casa este veche.\nBuna ziua.\n")
    hyp.write_text("The house is old.\nGood day.\n")
    assert main(["score", "--encoder", str(out), "--src", str(src), "--hyp", str(hyp),
                 "--format", "json", "-q"]) == 0
    signed = json.loads(capsys.readouterr().out)["signature"]
    assert signed == headline.signature and "over:" not in signed
    assert ("toy-length:toy-length-1*1" in signed) == bool(weight)
    assert main(["score", "--encoder", str(out), "--src", str(src), "--hyp", str(hyp),
                 "--format", "json", "-q", "--term", f"toy-length={2 if weight else 1}"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"].endswith("|over:term:toy-length")
    assert main(["evaluate", "mlqe", "--data", str(mlqe_dev), "--split", "dev", "--pairs",
                 "ro-en", "--encoder", str(out), "--labels", "chosen", "--no-baselines",
                 "--format", "json", "-q", "--no-reuse"]) == 0
    found = json.loads(capsys.readouterr().out)
    row = found["rows"][0]
    assert row["signature"] == headline.signature
    assert round(found["metrics"][f"{row['label']}/avg/pearson"], 3) == \
        round(headline.pearson, 3)


def test_choose_refuses_an_lm_path_it_could_not_write_into_a_configuration(tmp_path, tiny_gpt2,
                                                                           capsys):
    assert main(["choose", "--dev", "mlqe", "--candidates", "nosuch", "--lm", str(tiny_gpt2),
                 "--out", str(tmp_path / "o")]) == 2
    assert "give the LM by name" in capsys.readouterr().err and not (tmp_path / "o").exists()


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_calibrate_puts_the_chosen_exports_scores_on_the_dev_judgments_scale(
        tmp_path, mlqe_dev, tiny_bert, capsys):
    from alignment.evaluation.correlation import pearson
    from alignment.export.card import read_headline
    from alignment.judgments import get_benchmark
    from alignment.xmover import XMoverScorer
    from alignment.xmover.configuration import ScoringConfig

    export = _with_sentence_map(_ro_export(tmp_path / "clp", tiny_bert))
    out = tmp_path / "chosen"
    assert main(["choose", "--dev", "mlqe", "--data", str(mlqe_dev), "--candidates",
                 str(export), "--layer", "1", "--sentence-weights", "0", "0.5", "--calibrate",
                 "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    cal = ScoringConfig.load(out).calibration
    assert cal.to == "MLQE-PE DA z-score" and cal.on == "mlqe dev ro-en" and cal.segments == 6
    dev = get_benchmark("mlqe").load(mlqe_dev, "dev", None)
    scorer = XMoverScorer(str(out))
    final = scorer.score(dev.src, dev.mt).final
    # least squares with an offset: the scores' mean is people's, their errors uncorrelated
    assert final.mean() == pytest.approx(dev.human.mean(), abs=1e-9)
    assert np.dot(final - final.mean(), dev.human - final) == pytest.approx(0.0, abs=1e-9)
    headline = read_headline(out)
    assert pearson(final, dev.human) == pytest.approx(headline.pearson, abs=5e-4)
    assert scorer.signature == headline.signature and "|cal:MLQE-PE-DA-z-score#" in \
        scorer.signature
