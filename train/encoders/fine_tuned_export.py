"""Export of a fine-tuned encoder: NORM statistics from sentences of each language, then
``alignment.export.remapped.export_encoder``. Takes the encoder and a provenance record, not
the data module: what to export and how it was made are said explicitly."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from alignment.encoding.encoder import Encoder
from alignment.encoding.norm_head import language_statistics, running_norm
from alignment.export.provenance import DataProvenance
from alignment.export.remapped import export_encoder
from alignment.mappings.base import Mapping


def language_vectors(encoder: Encoder, sentences: dict[str, list[str]]) -> dict[str, np.ndarray]:
    """Word vectors per language of ``sentences`` with ``encoder`` as it is now."""
    encoder.model.eval()
    out = {}
    for lang, lines in sentences.items():
        vecs = encoder.encode_words(encoder.tokenize_words(lines), progress=False)
        out[lang] = np.concatenate(vecs)
    return out


def export_fine_tuned(encoder: Encoder, sentences: dict[str, list[str]], data: DataProvenance,
                      directory: str | Path, head: str = "norm", text_settings: dict | None = None,
                      extra: dict | None = None, overwrite: bool = True) -> dict:
    """Write the export of a (fine-tuned) ``encoder`` with its head (``norm``: the running
    mean/variance of ``data``'s two languages, from ``sentences``; ``identity``: none) and every
    language's NORM statistics; returns its ``remap.json``."""
    from alignment.mappings.registry import get_method

    stats = {lang: language_statistics(v) for lang, v in language_vectors(encoder, sentences).items()}
    if head == "norm":
        mapping: Mapping = running_norm(stats[data.src_lang], stats[data.tgt_lang])
    else:
        mapping = get_method("identity").mapping(encoder.dim)
    return export_encoder(directory, encoder.model, encoder.tokenizer, mapping, data, stats,
                          text_settings, dict(extra or {}), overwrite=overwrite)
