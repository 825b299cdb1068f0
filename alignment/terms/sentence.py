"""The sentence term: the cosine of source and output sentence vectors — the encoder's own mean
over one layer, through the export's sentence map where it has one
(``alignment.xmover.sentence_vectors``, ``alignment.xmover.sentence_map``). Bound to the scorer whose
encoder and map compute it; the sources' vectors are computed once for every system."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .term import Batch, Runtime, ScorerTerm, register_term


@dataclass(frozen=True)
class SentenceTerm(ScorerTerm):
    """Its option is written even at weight 0: an export's sentence map brings a weight of its
    own otherwise."""

    def default_weight(self, scorer) -> float:
        """0 where a setting (an export's ``scoring.json``) was read — it gives every weight —
        else the sentence map's own ``coef`` (a map given with no setting, an export made
        before exports kept one, ``setting="none"``: how cards are measured from options)."""
        smap = scorer.sentence_map
        return 0.0 if smap is None or scorer.config is not None else smap.coef

    def available(self, scorer) -> bool:
        return scorer.sentence is not None

    def flag_words(self, weight: float) -> str | None:
        return f"{self.flag} {weight:g}"

    def signature_fields(self, weight: float, precision: str = "fp32") -> dict[str, object]:
        term = self.model.sentence
        return {"sentence": f"{term.describe()}*{weight:g}" if term and weight else None}

    def values(self, batch: Batch, runtime: Runtime) -> np.ndarray:
        scorer = self.model
        term = scorer.sentence
        src = runtime.once(("sentence", "sources"), lambda: term.side_vectors(
            scorer.normalised(batch.sources, runtime), "src", runtime.cache))
        return term.similarity(src, term.side_vectors(batch.outputs, "hyp", runtime.cache))


register_term(SentenceTerm(
    "sentence", "sentence", "--sentence-weight", (0.0, 0.05, 0.1, 0.2, 0.5, 1.0),
    "the cosine of source and output sentence embeddings (through the sentence map where the "
    "export has one)", ident="sentence", own_option=True))
