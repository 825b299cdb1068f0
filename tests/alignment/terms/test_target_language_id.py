"""The ``target-language-id`` term: a language identifier's probability of the target language —
a translation near 1, a copy of the source or another language near 0 — loaded only from the
pinned model file, and refused by name for a language it does not identify."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from alignment.errors import InputError
from alignment.terms import TERMS, Batch, Runtime
from alignment.terms import target_language_id
from train.cli import main

pytest.importorskip("py3langid")
TERM = TERMS["target-language-id"]


def values(outputs: list[str], languages=("de", "zh"), runtime=None) -> np.ndarray:
    return TERM.values(Batch(["ein Haus"] * len(outputs), outputs, languages),
                       runtime or Runtime())


def test_a_translation_scores_near_one_and_a_copy_or_another_language_near_zero():
    got = values(["花园里的房子很漂亮。", "ein schönes Haus im Garten", "a beautiful house",
                  "2013 年 12 月 ， 我们 在 花园 里 。", "… 42 !"])
    assert got[0] > 0.9 and got[3] > 0.9  # tokenised Chinese is read without its spaces
    assert got[1] < 0.1 and got[2] < 0.1
    assert got[4] == 1.0  # no letter: nothing to translate
    assert values(["Der Hund frisst das Brot im Haus."], ("en", "de"))[0] > 0.9


def test_the_identifier_loads_once_a_runtime_and_refuses_what_it_cannot_identify():
    runtime = Runtime()
    values(["ein Haus"], ("zh", "de"), runtime)
    loaded = runtime.cache.models[("language identifier", "py3langid")]
    values(["ein Haus"], ("zh", "de"), runtime)
    assert runtime.cache.models[("language identifier", "py3langid")] is loaded
    with pytest.raises(InputError, match="does not identify 'ny'"):
        values(["moni"], ("en", "ny"))
    with pytest.raises(InputError, match="--src-lang and --tgt-lang"):
        values(["ein Haus"], None)


def test_a_changed_model_file_is_never_unpickled(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec("py3langid")
    package = tmp_path / "py3langid"
    shutil.copytree(real.submodule_search_locations[0], package)
    model = package / "data" / "model.plzma"
    model.write_bytes(model.read_bytes()[:-1] + b"\0")  # one byte changed
    fake = importlib.util.spec_from_file_location("py3langid", package / "__init__.py")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: fake)
    import pickle

    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("unpickled"))
    with pytest.raises(InputError, match="is not the model of py3langid 0.3.0"):
        target_language_id.load_identifier()


def test_the_term_ranks_an_untranslated_output_last_through_score(tmp_path, tiny_bert, capsys):
    src, hyp = tmp_path / "src.de", tmp_path / "hyp.zh"
    src.write_text("ein Haus im Garten\nder lange Tag ist vorbei\n")
    hyp.write_text("花园里的房子\nder lange Tag ist vorbei\n")
    common = ["score", "--encoder", str(tiny_bert), "--layer", "1", "--src", str(src), "--hyp",
              str(hyp), "--src-lang", "de", "--tgt-lang", "zh", "--format", "json", "-q"]
    assert main([*common, "--term", "target-language-id=1"]) == 0
    out = json.loads(capsys.readouterr().out)
    terms = out["terms"]["target-language-id"]
    assert terms[0] > 0.9 and terms[1] < 0.1
    assert "terms:target-language-id:py3langid-0.3.0+prob1*1" in out["signature"]
