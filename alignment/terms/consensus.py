"""Consensus of MT systems, a reference-free term for when several systems translated the same
sources: how close a hypothesis is to the *other* systems' translations of its source, by
character n-gram F-score (chrF; Popović 2015), a term in standard units (``Setting.combine``). No
human reference is read; a system's own output (or an identical one it shares a line with) is
never its own pseudo-reference."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from alignment.errors import InputError

from .term import register_term
from .term import Batch, Runtime, Term

CHRF_ORDER = 6     # character n-grams 1..6 (chrF's definition)
CHRF_BETA = 2.0    # recall weighted twice as much as precision
SIGNATURE = f"consensus:chrF(n{CHRF_ORDER},beta{CHRF_BETA:g})-mean-of-other-systems"
COMBINE_SIGNATURE = "combine:z-sum-per-pair"


@lru_cache(maxsize=200_000)
def _char_ngrams(text: str, order: int) -> tuple[Counter, ...]:
    """Character n-gram counts of ``text`` without its whitespace, for n = 1..order."""
    s = "".join(text.split())
    return tuple(Counter(s[i:i + n] for i in range(len(s) - n + 1)) for n in range(1, order + 1))


def chrf(hypothesis: str, reference: str, order: int = CHRF_ORDER, beta: float = CHRF_BETA) -> float:
    """chrF of one hypothesis against one reference, in [0, 1]: the F-beta of character n-gram
    precision and recall, each averaged over the orders both strings are long enough for; 0
    when they share no order (an empty string)."""
    precision = recall = 0.0
    orders = 0
    for h, r in zip(_char_ngrams(hypothesis, order), _char_ngrams(reference, order)):
        if not h or not r:
            continue
        match = sum((h & r).values())
        precision += match / sum(h.values())
        recall += match / sum(r.values())
        orders += 1
    if orders == 0:
        return 0.0
    precision, recall = precision / orders, recall / orders
    if precision + recall == 0:
        return 0.0
    return (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)


def consensus_scores(hypotheses: list[str], others: list[list[str]]) -> np.ndarray:
    """For every hypothesis, its mean chrF against ``others[i]`` (the other systems'
    translations of the same source); NaN where there is none."""
    if len(hypotheses) != len(others):
        raise InputError(f"{len(hypotheses)} hypotheses but other outputs for {len(others)}",
                         parameter="others")
    return np.array([np.mean([chrf(h, o) for o in outs]) if outs else np.nan
                     for h, outs in zip(hypotheses, others)], dtype=np.float64)


def outputs_of_others(systems: dict[str, list[str]], line: int,
                      system: str | list[str]) -> list[str]:
    """The outputs at ``line`` of every system in ``systems`` but ``system`` (a name, the names
    of systems that produced one identical output, ``A+B``, or a list of names taken as is)."""
    own = set(system.split("+")) if isinstance(system, str) else set(system)
    return [out[line] for name, out in systems.items() if name not in own]


def other_outputs(systems: dict[str, list[str]], system: str | list[str]) -> list[list[str]]:
    """``outputs_of_others`` for every line."""
    lengths = {len(v) for v in systems.values()}
    if len(lengths) > 1:
        raise InputError(f"system outputs of different lengths {sorted(lengths)}",
                         parameter="systems")
    return [outputs_of_others(systems, i, system) for i in range(lengths.pop() if lengths else 0)]


@dataclass(frozen=True)
class ConsensusTerm(Term):
    """Read from a batch's ``others``: each output's mean chrF against the other systems'
    outputs of its source; weighed in standard units (see ``Setting.combine``)."""

    def flag_words(self, weight: float) -> str | None:
        return self.flag if weight else None

    def signature_fields(self, weight: float, precision: str = "fp32") -> dict[str, object]:
        """Signed after the rest (`` ⊕ consensus:…|combine:…``): it changes how all add up."""
        w = "" if weight == 1 else f"*{weight:g}"
        return {"after": f"{SIGNATURE}{w}|{COMBINE_SIGNATURE}"} if weight else {}

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        if batch.others is None:
            raise InputError("the consensus term needs the other systems' outputs of each "
                             "source (three or more systems)", parameter="consensus")
        return consensus_scores(batch.outputs, batch.others)


register_term(ConsensusTerm(
    "consensus", "consensus", "--consensus", (0.0, 1.0),
    "chrF against the other systems' outputs of the same source (no reference)",
    units="standard", ident=SIGNATURE, own_option=True, reads_others=True))
