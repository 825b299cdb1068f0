import itertools
import json

import numpy as np
import pytest
from safetensors.numpy import load_file

from alignment.errors import InputError
from alignment.xmover.lm import LanguageModelScorer
from train.cli import main
from train.encoders.language_model import LanguageModelConfig, train_language_model

SUBJECTS, VERBS, OBJECTS = ["the dog", "the cat", "a woman", "the child"], ["eats", "reads", "sees"], \
    ["the bread .", "a book .", "the apple ."]
TINY = dict(vocab_size=300, layers=1, width=32, heads=2, context=32, epochs=4, batch_size=16, lr=3e-3)


@pytest.fixture(scope="module")
def grammar_text(tmp_path_factory):
    lines = [" ".join(p) for p in itertools.product(SUBJECTS, VERBS, OBJECTS)] * 8
    path = tmp_path_factory.mktemp("lm") / "text.en"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_trained_lm_loads_in_the_scorer_and_prefers_fluent_word_order(grammar_text, tmp_path):
    meta = train_language_model(grammar_text, tmp_path / "lm", LanguageModelConfig(**TINY), progress=False)
    saved = json.loads((tmp_path / "lm" / "lm.json").read_text())
    assert saved["signature"] == meta["signature"] and np.isfinite(saved["val_perplexity"])
    scorer = LanguageModelScorer(str(tmp_path / "lm"), device="cpu")
    fluent = scorer.score(["the cat sees a book .", "a woman eats the apple ."])
    scrambled = scorer.score([". book sees cat a the", "apple woman the . eats a"])
    assert fluent.min() > scrambled.max()


def test_same_seed_same_weights_other_seed_other_weights(grammar_text, tmp_path):
    cfg = dict(TINY, epochs=1)
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        train_language_model(grammar_text, tmp_path / name, LanguageModelConfig(**cfg, seed=seed), progress=False)
    a, b, c = (load_file(str(tmp_path / n / "model.safetensors")) for n in "abc")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert any(not np.array_equal(a[k], c[k]) for k in a)


def test_bad_settings_and_too_little_text_fail_before_training(grammar_text, tmp_path, capsys):
    with pytest.raises(InputError, match="width"):
        train_language_model(grammar_text, tmp_path / "x", LanguageModelConfig(width=30, heads=4))
    short = tmp_path / "short.txt"
    short.write_text("one line\n" * 10)
    assert main(["lm", "--text", str(short), "--out", str(tmp_path / "y")]) == 2
    assert "too little text" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
