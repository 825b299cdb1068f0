"""An export's scoring configuration (``scoring.json``): read as data (every fault refused in
one line naming the file), loaded by the scorer by default so that the export's name alone
scores as its card measured, overridden by an option given (the signature's ``over:`` says
what), set aside with ``setting="none"``; the renamed terms keep their old names; and the
outputs are read in one place, by the scorer, for every term and consumer."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from alignment.errors import InputError
from alignment.export.card import Headline
from alignment.xmover.configuration import ScoringConfig
from alignment.terms import Setting

ROOT = Path(__file__).parents[3]


def _config(**given) -> ScoringConfig:
    return ScoringConfig.of(Setting.of(sentence=0.5, **{"gemma-given-source": 0.05}),
                            Headline("x ⊕ sentence", 0.41, 0.3, 0.5, "mlqe dev", "sig"), **given)


def test_a_configuration_reads_back_equal_and_says_its_options(tmp_path):
    config = _config(read="written")
    config.write(tmp_path)
    assert ScoringConfig.load(tmp_path) == config
    assert config.options() == ["--sentence-weight", "0.5", "--term", "gemma-given-source=0.05",
                                "--read", "written"]
    assert dict(config.identities) == {"gemma-given-source": "gemma3-270m-q4km+prompt1+cjk"}
    assert ScoringConfig.load(tmp_path / "nothing") is None


@pytest.mark.parametrize("change, message", [
    ({"format": "crossalign-scoring-9"}, "'format' must be"),
    ({"extra": 1}, "'extra' is not a key"),
    ({"weights": {"xmover": float("nan")}}, "finite number"),
    ({"weights": {"xmover": -1}}, "finite number"),
    ({"weights": {"xmover": True}}, "finite number"),
    ({"weights": {"nosuch-term": 1}}, "unknown term 'nosuch-term'"),
    ({"weights": {}}, "'weights' must be"),
    ({"read": "sideways"}, "sideways"),
    ({"formula": "1999"}, "1999"),
    ({"precision": "fp8"}, "fp8"),
    ({"lm": "/etc/passwd"}, "'lm' must be an LM's name"),
    ({"lm": None, "weights": {"xmover": 1, "lm": 0.1}}, "names no LM"),
    ({"measured": {"row": "x"}}, "'measured' must hold"),
    ({"measured": {"row": "x", "pearson": 7, "lo": 0, "hi": 1, "on": "d", "signature": ""}},
     "'measured' must hold"),
    ({"identities": ["a"]}, "'identities' must be"),
])
def test_a_damaged_configuration_is_refused_naming_its_file(tmp_path, change, message):
    raw = {**_config().as_dict(), **change}
    (tmp_path / "scoring.json").write_text(json.dumps(raw))
    with pytest.raises(InputError, match=message) as err:
        ScoringConfig.load(tmp_path)
    assert str(tmp_path / "scoring.json") in str(err.value)


def test_a_configuration_that_is_not_json_is_refused_with_its_line(tmp_path):
    (tmp_path / "scoring.json").write_text('{\n  "format": \n')
    with pytest.raises(InputError, match=r"scoring.json:3: not JSON"):
        ScoringConfig.load(tmp_path)


def test_the_renamed_terms_keep_their_old_names_with_a_note():
    from alignment.catalogue import FormerNameWarning

    with pytest.warns(FormerNameWarning) as notes:
        old = Setting.of(**{"gemma-src": 0.05, "gemma-source": 0.02})
    assert old == Setting.of(**{"gemma-given-source": 0.05, "gemma-source-alone": 0.02})
    said = [str(n.message) for n in notes]
    assert "term 'gemma-src' is now 'gemma-given-source' (the old name still works)" in said
    assert "term 'gemma-source' is now 'gemma-source-alone' (the old name still works)" in said


@pytest.fixture
def configured_export(tmp_path, tiny_bert):
    """An identity export of the tiny BERT whose configuration reads the outputs as written
    and weighs a sentence term (no map: the encoder's cosine) at 0.5."""
    from alignment.encoding.encoder import load_encoder
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_remapped
    from alignment.mappings.affine import Identity

    encoder = load_encoder(str(tiny_bert), layer=1)
    folder = tmp_path / "export"
    export_remapped(folder, Identity(encoder.dim),
                    DataProvenance(encoder.identity(), None, None, None, "t", "de", "en"))
    ScoringConfig.of(Setting.of(sentence=0.5), read="written").write(folder)
    return folder


SRC, HYP = ["Das Haus ist alt .", "Guten Morgen ."], ["the house is old .", "good morning ."]


@pytest.mark.filterwarnings("ignore:.*subword pieces")
def test_an_export_scores_with_its_configuration_unless_an_option_overrides_it(
        configured_export):
    from alignment.xmover.scorer import XMoverScorer

    own = XMoverScorer(str(configured_export))
    spelled = XMoverScorer(str(configured_export), setting="none", weights={"sentence": 0.5},
                           read="written")
    assert own.signature == spelled.signature and "over:" not in own.signature
    assert "read:written" in own.signature and "*0.5" in own.signature
    a, b = own.score(SRC, HYP), spelled.score(SRC, HYP)
    assert a.final.tolist() == b.final.tolist()
    assert a.outputs == ["The house is old.", "Good morning."]  # as written, for every term
    same = XMoverScorer(str(configured_export), read="written", weights={"sentence": 0.5})
    assert same.signature == own.signature  # an option equal to the configuration's
    other = XMoverScorer(str(configured_export), read="given", weights={"sentence": 1.0})
    assert other.signature.endswith("|over:read,sentence-weight")
    assert "read:" not in other.signature and "*1|" in other.signature
    bare = XMoverScorer(str(configured_export), setting="none")
    assert "sent:" not in bare.signature and "read:" not in bare.signature


def test_a_term_measured_as_another_version_is_noted(configured_export, tiny_bert):
    from alignment.xmover.scorer import XMoverScorer

    raw = json.loads((configured_export / "scoring.json").read_text())
    raw["weights"]["use"] = 0.1
    raw["identities"] = {"use": "use-multilingual-v2"}
    (configured_export / "scoring.json").write_text(json.dumps(raw))
    scorer = XMoverScorer(str(configured_export))
    assert any("measured as use-multilingual-v2" in n for n in scorer.notes)


def _calls(path: Path, names: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id",
                                                      getattr(node.func, "attr", None)) in names]


def test_the_outputs_are_read_in_one_place():
    found = [c for folder in ("alignment", "train", "benchmarks")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if path.name != "written.py" for c in _calls(path, {"read_outputs"})]
    assert len(found) == 1 and found[0].startswith("alignment/xmover/scorer.py"), found
    counted = [c for folder in ("alignment", "train", "benchmarks")
               for path in sorted((ROOT / folder).rglob("*.py"))
               if path.name != "written.py" and "archive" not in path.parts
               for c in _calls(path, {"read_segments"})]
    assert not counted, counted  # a probe that reads segments itself lives in the archive
