"""Every preprocessing choice of the BERT-based metrics as an option, signed: which subword
pieces are kept, punctuation and stopword removal (with the list's identity), idf and its
corpus, lowercasing; and each metric's published choices as a named preset."""
from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.xmover.ngrams import is_continuation, is_punctuation

SUBWORDS = ("all", "first")
IDF = ("none", "corpus", "default-only")


@dataclass(frozen=True)
class Stopwords:
    """A stopword list and its identity (name and sha256 of the sorted words), so that a score
    says which list it removed."""

    name: str
    words: frozenset[str]

    @classmethod
    def from_file(cls, path: str | Path) -> "Stopwords":
        """Words separated by spaces or newlines (MoverScore's ``stopwords.txt`` form)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(f"cannot read the stopword list ({err})", path=path) from None
        words = frozenset(text.split())
        if not words:
            raise InputError("the stopword list is empty", path=path)
        return cls(path.stem, words)

    @property
    def digest(self) -> str:
        return hashlib.sha256("\n".join(sorted(self.words)).encode("utf-8")).hexdigest()[:12]

    def describe(self) -> str:
        return f"{self.name}#{self.digest}"


@dataclass(frozen=True)
class Preprocessing:
    """How a metric reads a sentence's tokens.

    ``subwords``: ``all`` pieces, or the ``first`` of each word (continuation pieces dropped);
    ``punctuation``: drop tokens that are one ASCII punctuation character; ``stopwords``: drop
    these tokens (a SentencePiece token's word marker ▁ set aside, so ``▁the`` is ``the``);
    ``idf``: token weights ``none`` (1), ``corpus`` (each side's idf over its own sentences) or
    ``default-only`` (every token the idf of a token never seen, log(N + 1): what BaryScore's
    public code computes, its every lookup missing); ``lowercase`` the text first. Special
    tokens ([CLS], [SEP]) are always kept, as in every public implementation."""

    subwords: str = "all"
    punctuation: bool = False
    stopwords: Stopwords | None = None
    idf: str = "none"
    lowercase: bool = False

    def __post_init__(self) -> None:
        check_choice(self.subwords, SUBWORDS, "subword selection", parameter="subwords")
        check_choice(self.idf, IDF, "idf", parameter="idf")

    def with_options(self, **options) -> "Preprocessing":
        """This preprocessing with the options given (None: keep this one's)."""
        return replace(self, **{k: v for k, v in options.items() if v is not None})

    def describe(self) -> str:
        """``sub:first+punct+stop:NAME#HASH+idf:corpus+lower``: every choice, for the signature."""
        parts = [f"sub:{self.subwords}", "punct" if self.punctuation else "keep-punct",
                 f"stop:{self.stopwords.describe()}" if self.stopwords else "stop:none",
                 f"idf:{self.idf}"]
        return "+".join(parts + (["lower"] if self.lowercase else []))

    def text(self, sentences: list[str]) -> list[str]:
        return [s.lower() for s in sentences] if self.lowercase else list(sentences)

    def keep(self, tokens: list[str], special: list[bool], sentencepiece: bool) -> list[bool]:
        """Which tokens the metric reads."""
        stop = self.stopwords.words if self.stopwords else frozenset()
        return [s or not ((self.punctuation and is_punctuation(t)) or t.lstrip("▁") in stop or (
            self.subwords == "first" and is_continuation(t, sentencepiece)))
            for t, s in zip(tokens, special)]


def document_frequencies(token_lists: list[list[str]]) -> tuple[int, Counter]:
    """Each sentence one document; its tokens (special ones included) counted once."""
    df: Counter = Counter()
    for tokens in token_lists:
        df.update(set(tokens))
    return len(token_lists), df


def idf_weights(tokens: list[str], corpus: tuple[int, Counter] | None) -> list[float]:
    """log((N + 1) / (df + 1)) for each token (a token never seen: log(N + 1)); 1 without a
    corpus."""
    if corpus is None:
        return [1.0] * len(tokens)
    n, df = corpus
    return [math.log((n + 1) / (df.get(t, 0) + 1)) for t in tokens]


PRESETS: dict[str, Preprocessing] = {
    "moverscore-v1": Preprocessing("first", True, None, "corpus"),
    "moverscore-v2": Preprocessing("first", True, None, "corpus"),
    "baryscore": Preprocessing("all", False, None, "default-only"),
}
"""The published defaults: MoverScore's README calls (idf over each side's corpus,
``remove_subwords=True``, no stopwords; v2 always drops continuation pieces and punctuation);
BaryScore's class with ``use_idfs=True`` (every token; its idf lookup never finds a token, as it
looks token tensors up in a dictionary of ints, so every token gets the default, log(N + 1))."""


def preset(name: str) -> Preprocessing:
    """The published preprocessing called ``name``; unknown: the catalogue's error."""
    return PRESETS[check_choice(name, PRESETS, "preprocessing preset", parameter="preprocessing")]
