"""Export of a fine-tuned encoder from its data module: NORM statistics from training text,
then ``alignment.export.remapped.export_encoder``."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from alignment.export.remapped import export_encoder
from alignment.mappings.base import Mapping
from alignment.encoding.norm_head import language_statistics, running_norm


def language_vectors(dm, n: int) -> dict[str, np.ndarray]:
    """Word vectors per language from the first ``n`` training sentences of each corpus (the
    pivot's from every corpus), with the data module's encoder as it is now."""
    encoder = dm.load_encoder()
    encoder.model.eval()
    out: dict[str, list[np.ndarray]] = {}
    for d in dm.data:
        for lang, side in ((d.src_lang, d.corpus.src), (dm.hparams.pivot, d.corpus.tgt)):
            words = encoder.tokenize_words(side[:n])
            vecs = encoder.encode_words(words, progress=False)
            out.setdefault(lang, []).extend(vecs)
    return {lang: np.concatenate(v) for lang, v in out.items()}


def export_fine_tuned(dm, directory: str | Path, head: str = "norm", norm_sentences: int = 2000,
                      extra: dict | None = None, overwrite: bool = True) -> dict:
    """Write the export of ``dm``'s (fine-tuned) encoder; returns its ``remap.json``."""
    from alignment.mappings.registry import get_method

    encoder = dm.load_encoder()
    stats = {lang: language_statistics(v)
             for lang, v in language_vectors(dm, norm_sentences).items()}
    data = dm.provenance
    if head == "norm":
        mapping: Mapping = running_norm(stats[data.src_lang], stats[data.tgt_lang])
    else:
        mapping = get_method("identity").mapping(encoder.dim)
    return export_encoder(directory, encoder.model, encoder.tokenizer, mapping, data, stats,
                          dm.text_settings, {"norm_sentences": norm_sentences, **(extra or {})},
                          overwrite=overwrite)
