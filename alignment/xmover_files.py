"""Files in the layout the public XMoverScore code loads: ``.BAM`` (CLP matrix W, applied as
``emb @ W`` to the source side) and ``.GBDD`` (UMD unit vector v), saved with ``numpy.save``
under names without an extension."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .atomic import atomic_path
from .mappings import AffineMapping, Composition, Mapping


def size_label(n_sentences: int) -> str:
    """``2000 -> '2k'``, ``500 -> '500'`` (the public files are named like ``...de-en.2k.12.BAM``)."""
    return f"{n_sentences // 1000}k" if n_sentences >= 1000 else str(n_sentences)


def xmover_filename(corpus: str, src: str, tgt: str, n_sentences: int, layer: int, kind: str) -> str:
    return f"{corpus}.{src}-{tgt}.{size_label(n_sentences)}.{layer}.{kind}"


def save_npy_exact(path: Path, array: np.ndarray) -> None:
    """``numpy.save`` to exactly ``path`` (no ``.npy`` appended), atomically."""
    with atomic_path(path) as tmp:
        with tmp.open("wb") as fh:
            np.save(fh, array)


def xmover_arrays(mapping: Mapping) -> tuple[dict[str, np.ndarray], str]:
    """The arrays expressible in XMoverScore's format, and why others are not.

    BAM: a source-only linear map without bias. GBDD: a single UMD stage."""
    stages = list(mapping.stages) if isinstance(mapping, Composition) else [mapping]
    stages = [s for s in stages if s.kind != "identity"]
    if len(stages) == 1 and stages[0].kind == "umd":
        return {"GBDD": stages[0].direction.numpy().astype(np.float32)}, ""
    if isinstance(mapping, AffineMapping) and mapping.is_source_only() and not mapping.src_bias.any():
        return {"BAM": mapping.src_weight.numpy().astype(np.float32)}, ""
    return {}, (f"'{mapping.describe()}' is not expressible in XMoverScore's files (they hold "
                "a bias-free source-side matrix or one UMD direction)")


def write_xmover_files(directory: Path, mapping: Mapping, corpus: str, src: str, tgt: str,
                       n_sentences: int, layer: int) -> tuple[list[str], str]:
    arrays, why_not = xmover_arrays(mapping)
    names = []
    for kind, arr in arrays.items():
        name = xmover_filename(corpus, src, tgt, n_sentences, layer, kind)
        save_npy_exact(directory / name, arr)
        names.append(name)
    return names, why_not
