"""``evaluate``'s default task as a library function: exports (of any encoders) measured on
held-out parallel text beside the unmapped encoder and a model-free reference, each export
after the first compared with it by a paired bootstrap on the same sentences."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from alignment.data.corpus import ParallelCorpus
from alignment.data.lexicon import Lexicon
from alignment.encoding.pipeline import prepare
from alignment.export.remapped import load_remapped
from .retrieval import char_ngram_reference, evaluate_mapping, paired_bootstrap, retrieval_hits


@dataclass
class ExportComparison:
    """Rows (name → measures) in table order, each later export's difference from the first
    (retrieval P@1: difference, low, high), the language pair and each export's signature."""

    rows: dict[str, dict[str, float]]
    differences: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    languages: tuple[str, str] = ("src", "tgt")
    signatures: dict[str, str] = field(default_factory=dict)
    first: str = ""


def row_labels(remapped: list, paths: list[str]) -> list[str]:
    """A row name per export: its mapping and folder name, or its path where names repeat."""
    names = [Path(p).name for p in paths]
    return [f"{r.mapping.describe()} ({n if names.count(n) == 1 else p})"
            for r, n, p in zip(remapped, names, paths)]


def evaluate_exports(corpus: ParallelCorpus, exports: list[str], lexicon: Lexicon | None = None,
                     csls: bool = False, alignment: str | None = None, n_boot: int = 1000,
                     seed: int = 0) -> ExportComparison:
    """Every export on ``corpus`` (word-aligned with ``alignment``, a Pharaoh file, or eflomal);
    exports of one encoder share its vectors."""
    remapped = [load_remapped(e) for e in exports]
    keys = [repr(r.encoder.identity()) for r in remapped]
    prepared: dict[str, object] = {}
    for key, r in zip(keys, remapped):
        if key not in prepared:
            prepared[key] = prepare(corpus, r.encoder, alignment or "eflomal")
    data = [prepared[key] for key in keys]
    labels = row_labels(remapped, exports)
    unmapped = "unmapped" if len(prepared) == 1 else f"unmapped ({labels[0]}'s encoder)"
    rows = {"char 3-4-gram TF-IDF (no model)": char_ngram_reference(data[0]),
            unmapped: evaluate_mapping(data[0], None, lexicon, csls)}
    rows.update({label: evaluate_mapping(d, r.mapping, lexicon, csls)
                 for label, d, r in zip(labels, data, remapped)})
    out = ExportComparison(rows, languages=(remapped[0].meta.get("src_lang") or "src",
                                            remapped[0].meta.get("tgt_lang") or "tgt"),
                           signatures={p: r.signature for p, r in zip(exports, remapped)},
                           first=labels[0])
    if len(remapped) > 1:
        hits = [retrieval_hits(d, r.mapping) for d, r in zip(data, remapped)]
        for label, h in zip(labels[1:], hits[1:]):
            d, lo, hi = paired_bootstrap(h, hits[0], n_boot, seed)
            out.differences[label] = (d, lo, hi)
            rows[label].update(delta_vs_first=d, delta_lo=lo, delta_hi=hi)
    return out
