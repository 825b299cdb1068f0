"""What a scorer accepts (lists of sentences, equal counts, no empty source), what it gives
back (``ScoreResult``) and which of its lines it had to cut."""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

import numpy as np

from alignment.errors import InputError


def validate_pairs(sources: list[str], hypotheses: list[str]) -> None:
    """Equal counts and a visible character in every source (an empty hypothesis is a
    legitimate, if bad, translation; an empty source leaves nothing to translate). A single
    string is refused: it would be read as a list of characters."""
    for name, given in (("sources", sources), ("hypotheses", hypotheses)):
        if isinstance(given, (str, bytes)):
            raise InputError(f"give a list of sentences, not one string (wrap it: [{given!r}])"
                             if len(given) < 60 else "give a list of sentences, not one string",
                             parameter=name)
        if isinstance(given, (list, tuple)) and not all(isinstance(s, str) for s in given):
            raise InputError("every sentence must be a string", parameter=name)
    if len(sources) != len(hypotheses):
        raise InputError(f"{len(sources)} sources but {len(hypotheses)} hypotheses",
                         parameter="hypotheses")
    for k, s in enumerate(sources, start=1):
        if not has_text(s):
            raise InputError(f"pair {k} has an empty source (nothing but spaces or invisible "
                             "format characters)", parameter="sources")


def has_text(text: str) -> bool:
    """Whether ``text`` holds a visible character (zero-width spaces, joiners, direction marks
    and variation selectors do not count)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cf", "Mn", "Cc")
               for ch in text)


def truncated_lines(results: list) -> dict[str, list[int]]:
    """The over-long lines of a ``score_systems`` call: the sources once, then each system's
    hypotheses (``system K`` when there are several)."""
    out = {"sources": results[0].truncated["sources"]} if "sources" in results[0].truncated else {}
    for k, r in enumerate(results, start=1):
        if "hypotheses" in r.truncated:
            out["hypotheses" if len(results) == 1 else f"system {k}"] = r.truncated["hypotheses"]
    return out


@dataclass
class ScoreResult:
    """Scores of a batch of (source, hypothesis) pairs and how they were made: ``final`` (the
    setting's sum), ``values`` (every computed term's values, by term name: the one home of a
    term's numbers), the signature, each stage's seconds, the empty hypotheses (scored as the
    formula defines them), the lines cut to the encoder's length (side -> 1-based lines) and
    the MT outputs as the terms read them."""

    final: np.ndarray
    signature: str
    values: dict[str, np.ndarray] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    empty_hypotheses: int = 0
    truncated: dict[str, list[int]] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)

    @property
    def xmover(self) -> np.ndarray | None:
        """XMoverScore's values (None where its weight is 0: not computed)."""
        return self.values.get("xmover")

    @property
    def lm(self) -> np.ndarray | None:
        return self.values.get("lm")

    @property
    def sentence(self) -> np.ndarray | None:
        return self.values.get("sentence")

    @property
    def system(self) -> float:
        """The system-level score: the mean over segments."""
        return float(self.final.mean())
