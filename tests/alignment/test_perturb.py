import numpy as np

from alignment.evaluation.perturb import (change_number, drop_words, flip_negation, perturb,
                                          replace_content_word, shuffle_words, swap_name,
                                          vocabulary)


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def test_negation_is_removed_or_inserted_after_the_first_auxiliary():
    assert flip_negation("You will not die.".split(), rng()) == "You will die."
    assert flip_negation("He was never there.".split(), rng()) == "He was there."
    assert flip_negation("The house is big.".split(), rng()) == "The house is not big."
    assert flip_negation("Go home now.".split(), rng()) is None


def test_a_number_changes_within_its_kind_and_keeps_its_punctuation():
    out = change_number("his days were one hundred twenty years.".split(), np.random.default_rng(3))
    words = out.split()
    assert out != "his days were one hundred twenty years."
    changed = [(a, b) for a, b in zip("his days were one hundred twenty years.".split(), words) if a != b]
    assert len(changed) == 1
    before, after = changed[0]
    kinds = [{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
              "twelve"}, {"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"},
             {"hundred", "thousand"}]
    assert any(before in k and after in k for k in kinds)
    assert change_number("In 40 days.".split(), rng()).split()[1] != "40"
    assert change_number("No numbers here.".split(), rng()) is None


def test_content_words_and_names_come_from_the_donors_and_keep_case_and_punctuation():
    content, names = vocabulary(["Moses went up the mountain.", "Aaron spoke to the people."])
    assert "mountain" in content and "people" in content and "the" not in content
    assert names == []  # first words are not taken for names
    content, names = vocabulary(["Then Moses went up.", "And Aaron spoke."])
    assert names == ["Aaron", "Moses"]
    out = replace_content_word("The serpent said, “Eat.”".split(), ["mountain"], rng())
    assert out == "The mountain said, “Eat.”"  # "said" is a function word here, "Eat" too short
    assert swap_name("Then Moses spoke.".split(), ["Aaron", "Moses"], rng()) == "Then Aaron spoke."
    assert swap_name("Then he spoke.".split(), ["Aaron"], rng()) is None


def test_drop_and_shuffle_keep_the_words_and_change_the_sentence():
    tokens = "in the beginning God created the heavens".split()
    dropped = drop_words(tokens, rng()).split()
    assert len(dropped) == len(tokens) - 2 and all(w in tokens for w in dropped)
    shuffled = shuffle_words(tokens, rng()).split()
    assert sorted(shuffled) == sorted(tokens) and shuffled != tokens
    assert drop_words(["two", "words"], rng()) is None and shuffle_words(["a", "a"], rng()) is None


def test_perturb_is_seeded_and_never_returns_the_reference():
    ref = "Then Moses said, “You will not eat from the two trees.”"
    donors, names = ["mountain", "bread"], ["Aaron"]
    a = perturb(ref, donors, names, np.random.default_rng(7))
    b = perturb(ref, donors, names, np.random.default_rng(7))
    assert a == b and all(v is None or v != ref for v in a.values())
    assert all(a[k] is not None for k in ("content", "negation", "number", "name", "drop", "shuffle"))
