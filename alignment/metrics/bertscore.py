"""Cross-lingual BERTScore (Zhang et al. 2020) with a crossalign export: the source's subword
vectors remapped as the export maps them, then BERTScore's greedy cosine matching against the
hypothesis — what ``bert_score`` computes, which cannot apply a map to one side only."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment.errors import InputError
from alignment.signature import BertScoreSignature, EncoderSignature


@dataclass
class BertScoreResult:
    """Per-pair precision, recall and F1 (no idf, no baseline rescaling) and how they were made."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    signature: str

    @property
    def final(self) -> np.ndarray:
        """The segment scores a metric reports: F1."""
        return self.f1


def _vectors(encoder, sentences: list[str], batch_size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each sentence's subword vectors at the encoder's layer (special tokens included: BERTScore
    matches against them) and which of them are content tokens (the ones averaged)."""
    encoded = encoder.encode_tokens(sentences, batch_size)
    return [(vecs.astype(np.float64), ~np.array(special, dtype=bool))
            for _, special, vecs in encoded]


def greedy_match(a: np.ndarray, b: np.ndarray, a_content: np.ndarray | None = None,
                 b_content: np.ndarray | None = None) -> tuple[float, float, float]:
    """BERTScore of candidate rows ``a`` against reference rows ``b``: precision (the mean, over
    the candidate's content rows, of each one's best cosine among all of ``b``'s rows), recall
    (the same from the reference's side) and their F1."""
    a_content = np.ones(len(a), bool) if a_content is None else a_content
    b_content = np.ones(len(b), bool) if b_content is None else b_content
    if not a_content.any() or not b_content.any():
        return 0.0, 0.0, 0.0
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    sim = a @ b.T
    p, r = float(sim[a_content].max(1).mean()), float(sim[:, b_content].max(0).mean())
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


def cross_lingual_bertscore(encoder: str | Path, sources: list[str], hypotheses: list[str],
                            layer: int | None = None, batch_size: int = 64,
                            device: str | None = None,
                            against_reference: bool = False) -> BertScoreResult:
    """BERTScore of each hypothesis (candidate) against its source (reference) with ``encoder``,
    a crossalign export (its layer, text normalisation and map: the source side mapped, the
    hypothesis by the map's target side) or a plain HF encoder at ``layer``.
    ``against_reference``: ``sources`` are references in the output's language, so an export is
    read at its layer without its map (both sides are the target language)."""
    from alignment.encoding.encoder import Encoder, EncoderSpec
    from alignment.xmover.score_result import validate_pairs
    from alignment.export.named import resolve_export
    from alignment.xmover.scorer import is_export

    validate_pairs(sources, hypotheses)
    encoder = resolve_export(encoder)
    if is_export(encoder):
        from alignment.export.remapped import load_remapped

        remapped = load_remapped(encoder, device=device)
        if layer is not None and layer != remapped.encoder.layer:
            raise InputError(f"the export was fitted at layer {remapped.encoder.layer}",
                             parameter="layer")
        model, mapping = remapped.encoder, remapped.mapping
        if against_reference:
            mapping, label = None, "none"
        else:
            if remapped.text is not None:
                sources = remapped.text(sources)
            label = f"{mapping.describe()}#{mapping.applied_fingerprint()}"
    else:
        if layer is None:
            raise InputError("give the layer for a plain encoder", parameter="layer")
        model, mapping, label = Encoder(EncoderSpec(str(encoder), layer), device=device), None, "none"
    src = _vectors(model, sources, batch_size)
    hyp = _vectors(model, hypotheses, batch_size)
    if mapping is not None:
        src = [(mapping.map_array(v, "src"), m) for v, m in src]
        hyp = [(mapping.map_array(v, "tgt"), m) for v, m in hyp]
    scores = np.array([greedy_match(h, s, hm, sm) for (h, hm), (s, sm) in zip(hyp, src)]
                      ).reshape(-1, 3)
    ident = model.identity()
    sig = str(BertScoreSignature(EncoderSignature.of(ident), label,
                                 "ref" if against_reference else "src"))
    return BertScoreResult(scores[:, 0], scores[:, 1], scores[:, 2], sig)


class BertScoreXL:
    """``cross_lingual_bertscore`` as a scorer: built once from an export or an encoder, then
    ``score(sources, hypotheses)`` like the other metrics."""

    def __init__(self, encoder: str | Path, layer: int | None = None, batch_size: int = 64,
                 device: str | None = None) -> None:
        self.encoder, self.layer, self.batch_size, self.device = encoder, layer, batch_size, device

    def score(self, sources: list[str], hypotheses: list[str]) -> BertScoreResult:
        return cross_lingual_bertscore(self.encoder, sources, hypotheses, self.layer,
                                       self.batch_size, self.device)
