"""Meaning-changing perturbations of an English reference, for a metric's challenge set: each
returns the perturbed sentence, or None when the sentence offers nothing to perturb (a verse
without a number has no number to change), so no pair is made up."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

STOPWORDS = frozenset("""a an the and or but if then so of to in on at by for with from into onto
upon out up down over under about as than that this these those there here who whom whose which
what when where why how all any each every some no nor not only own same such too very can will
just shall should would could may might must i me my mine we us our ours you your yours he him
his she her hers it its they them their theirs is am are was were be been being have has had do
does did also unto ye thee thou thy thine hath doth saith said let yet because before after
again against between through during while until both few more most other""".split())
AUXILIARIES = frozenset("""is was are were am will shall would should can could may might must
do does did has have had""".split())
NEGATIONS = frozenset({"not", "never"})
NUMBER_GROUPS = (("one two three four five six seven eight nine ten eleven twelve").split(),
                 ("twenty thirty forty fifty sixty seventy eighty ninety").split(),
                 ("hundred thousand").split())
NUMBER_WORDS = frozenset(w for group in NUMBER_GROUPS for w in group)
_TOKEN = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)


@dataclass(frozen=True)
class Word:
    """A whitespace token split into leading punctuation, core and trailing punctuation."""

    lead: str
    core: str
    trail: str

    @classmethod
    def of(cls, token: str) -> "Word":
        m = _TOKEN.match(token)
        return cls(m.group(1), m.group(2), m.group(3))

    def with_core(self, core: str) -> str:
        if self.core[:1].isupper() and core[:1].islower():
            core = core[0].upper() + core[1:]
        return self.lead + core + self.trail


def _is_content(core: str) -> bool:
    return (core.isalpha() and len(core) >= 4 and core.lower() not in STOPWORDS
            and core.lower() not in NUMBER_WORDS)


def _is_name(core: str, position: int) -> bool:
    return position > 0 and core.isalpha() and core[:1].isupper() and core.lower() not in STOPWORDS


def replace_content_word(tokens: list[str], donors: list[str], rng: np.random.Generator) -> str | None:
    """One content word replaced by a content word of another verse."""
    words = [Word.of(t) for t in tokens]
    spots = [i for i, w in enumerate(words) if _is_content(w.core) and not _is_name(w.core, i)]
    if not spots or not donors:
        return None
    i = spots[rng.integers(len(spots))]
    choices = [d for d in donors if d.lower() != words[i].core.lower()]
    if not choices:
        return None
    new = choices[rng.integers(len(choices))]
    return " ".join(tokens[:i] + [words[i].with_core(new.lower())] + tokens[i + 1:])


def flip_negation(tokens: list[str], rng: np.random.Generator) -> str | None:
    """Remove the first ``not``/``never`` or, when there is none, insert ``not`` after the first
    auxiliary verb."""
    words = [Word.of(t) for t in tokens]
    for i, w in enumerate(words):
        if w.core.lower() in NEGATIONS:
            rest = tokens[:i] + tokens[i + 1:]
            if w.lead or w.trail:  # keep its punctuation on a neighbour
                if i > 0:
                    rest[i - 1] = rest[i - 1] + w.trail
            return " ".join(rest) if rest else None
    for i, w in enumerate(words):
        if w.core.lower() in AUXILIARIES:
            if w.trail:
                return " ".join(tokens[:i] + [w.lead + w.core, "not" + w.trail] + tokens[i + 1:])
            return " ".join(tokens[:i + 1] + ["not"] + tokens[i + 1:])
    return None


def change_number(tokens: list[str], rng: np.random.Generator) -> str | None:
    """One number (a digit string or a number word) changed to a different one of its kind
    (units for units, tens for tens: "one hundred" becomes "seven hundred", not "ten hundred")."""
    words = [Word.of(t) for t in tokens]
    spots = [i for i, w in enumerate(words) if w.core.isdigit() or w.core.lower() in NUMBER_WORDS]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    core = words[i].core
    if core.isdigit():
        new = str(int(core) + int(rng.integers(1, 10)))
    else:
        group = next(g for g in NUMBER_GROUPS if core.lower() in g)
        others = [n for n in group if n != core.lower()]
        new = others[rng.integers(len(others))]
    return " ".join(tokens[:i] + [words[i].with_core(new)] + tokens[i + 1:])


def swap_name(tokens: list[str], names: list[str], rng: np.random.Generator) -> str | None:
    """One capitalised word inside the sentence (a name) replaced by a name of another verse."""
    words = [Word.of(t) for t in tokens]
    spots = [i for i, w in enumerate(words) if _is_name(w.core, i)]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    choices = [n for n in names if n != words[i].core]
    if not choices:
        return None
    return " ".join(tokens[:i] + [words[i].with_core(choices[rng.integers(len(choices))])]
                    + tokens[i + 1:])


def drop_words(tokens: list[str], rng: np.random.Generator, share: float = 1 / 3) -> str | None:
    """A third of the words (at least one) dropped; sentences of fewer than three words are left."""
    if len(tokens) < 3:
        return None
    n = max(1, int(round(share * len(tokens))))
    gone = set(rng.choice(len(tokens), size=n, replace=False).tolist())
    return " ".join(t for i, t in enumerate(tokens) if i not in gone)


def shuffle_words(tokens: list[str], rng: np.random.Generator) -> str | None:
    """All words in a random order different from the original."""
    if len(set(tokens)) < 2:
        return None
    for _ in range(10):
        order = rng.permutation(len(tokens))
        out = [tokens[i] for i in order]
        if out != tokens:
            return " ".join(out)
    return None


PERTURBATIONS: dict[str, str] = {
    "content": "a content word replaced by another verse's",
    "negation": "negation removed, or inserted after the first auxiliary",
    "number": "a number changed",
    "name": "a name swapped for another verse's",
    "drop": "a third of the words dropped",
    "shuffle": "word order shuffled",
}


def perturb(reference: str, donors: list[str], names: list[str],
            rng: np.random.Generator) -> dict[str, str | None]:
    """Every perturbation of one reference (None where it does not apply)."""
    tokens = reference.split()
    makers: dict[str, Callable[[], str | None]] = {
        "content": lambda: replace_content_word(tokens, donors, rng),
        "negation": lambda: flip_negation(tokens, rng),
        "number": lambda: change_number(tokens, rng),
        "name": lambda: swap_name(tokens, names, rng),
        "drop": lambda: drop_words(tokens, rng),
        "shuffle": lambda: shuffle_words(tokens, rng),
    }
    out = {}
    for kind in PERTURBATIONS:
        text = makers[kind]()
        out[kind] = text if text and text != reference else None
    return out


def vocabulary(sentences: list[str]) -> tuple[list[str], list[str]]:
    """Content words and names of a corpus (sorted, deduplicated): the donors of replacements."""
    content, names = set(), set()
    for s in sentences:
        for i, token in enumerate(s.split()):
            core = Word.of(token).core
            if _is_name(core, i):
                names.add(core)
            elif _is_content(core):
                content.add(core.lower())
    return sorted(content), sorted(names)
