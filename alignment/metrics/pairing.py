"""The two forms of a consumer metric: against a reference (published) or against the source
(reference-free, the source side mapped); the idf corpora each side's weights come from."""
from __future__ import annotations

import math

from alignment.errors import InputError
from alignment.xmover.score_result import validate_pairs
from .preprocessing import Preprocessing, document_frequencies, idf_weights
from .states import Encoded, LayerStates


def other_side(hypotheses: list[str], references: list[str] | None,
               sources: list[str] | None) -> tuple[list[str], str]:
    """The sentences the outputs are scored against and their form (``ref`` or ``src``)."""
    if (references is None) == (sources is None):
        raise InputError("give the references or the sources (not both)", parameter="references")
    other = references if references is not None else sources
    validate_pairs(other, hypotheses)
    return list(other), "ref" if references is not None else "src"


def encode_pairs(states: LayerStates, prep: Preprocessing, hypotheses: list[str],
                 other: list[str], form: str) -> tuple[list[Encoded], list[Encoded]]:
    """Both sides' tokens and vectors: the other side mapped as a source where ``form`` is
    ``src`` (its TEXT normalisation too, for an export), the outputs as the target side."""
    if form == "src" and states.text is not None:
        other = states.text(other)
    return (states.encode(prep.text(other), "src" if form == "src" else "ref"),
            states.encode(prep.text(hypotheses), "tgt" if form == "src" else "ref"))


def side_weights(prep: Preprocessing, other: list[Encoded], hyps: list[Encoded]
                 ) -> tuple[list[list[float]], list[list[float]]]:
    """Each token's idf weight (1 without idf), each side's over its own sentences."""
    if prep.idf == "default-only":
        return ([[math.log(len(other) + 1)] * len(e.tokens) for e in other],
                [[math.log(len(hyps) + 1)] * len(e.tokens) for e in hyps])
    if prep.idf == "none":
        return ([idf_weights(e.tokens, None) for e in other],
                [idf_weights(e.tokens, None) for e in hyps])
    own_other = document_frequencies([e.tokens for e in other])
    own_hyp = document_frequencies([e.tokens for e in hyps])
    return ([idf_weights(e.tokens, own_other) for e in other],
            [idf_weights(e.tokens, own_hyp) for e in hyps])
