"""The embedded default: packaged MiniLM on the Spanish–English Bible, every closed-form method,
one table. ``crossalign demo`` runs it; ``--pair de-en --encoder multilingual-e5-small-q4``
makes the same table for another pair and encoder."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from alignment.data.shipped_links import ship, start_recording
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.evaluation.retrieval import (cbli_hits, char_ngram_reference, columns,
                                            evaluate_mapping, paired_bootstrap, retrieval_hits)
from alignment.mappings import BASELINE, parse_method
from alignment.signature import EncoderSignature, TableSignature

from train.fitting.in_process import fit_arrays
from train.runs.reporting import format_table, report
from .testbed import BibleConfig, note_other_aligner_build, prepare_bible

DEFAULT_METHODS = ["umd", "center", "clp", "center > clp", "umd > clp"]


def demo_columns(src: str) -> list:
    return [*columns(src, "en"), ("lexicon_unseen_p1", "unseen")]


@dataclass
class DemoConfig(BibleConfig):
    """Everything the demo depends on (written to the run directory as config.json)."""

    out_dir: str = field(default="checkpoints/demo", metadata={"flag": "out", "help": "output folder"})
    methods: list[str] = field(default_factory=lambda: list(DEFAULT_METHODS),
                               metadata={"help": "closed-form methods, e.g. 'center > clp'"})
    ship_links: str | None = field(default=None, metadata={
        "help": "maintainers: also write the word links this run used into this folder as "
                "shipped links (alignment/data/links: the package's, which make the table the "
                "same on every machine)"})


def against_baseline(what: str, items: str, hits: dict, rows: list, key: str, seed: int) -> str:
    """Each row's difference from ``BASELINE`` with a paired bootstrap interval (also stored in
    the row's metrics under ``key``)."""
    base = hits[BASELINE]
    text = (f"\n{what} against {BASELINE} (points; paired bootstrap 95% CI over the {len(base)} "
            f"{items}, 1000 resamples):\n")
    for name, h in hits.items():
        if name != BASELINE:
            d, lo, hi = paired_bootstrap(h, base, 1000, seed)
            dict(rows)[name].update({key if key != "delta" else "delta_vs_baseline": d,
                                     f"{key}_lo": lo, f"{key}_hi": hi})
            text += f"  {name:<14} {100 * d:+6.1f}  [{100 * lo:+6.1f}, {100 * hi:+6.1f}]\n"
    return text


def run_demo(cfg: DemoConfig) -> dict[str, dict[str, float]]:
    """Run the demo; returns {row name: metrics} and writes table, metrics and exports."""
    start = time.time()
    specs = [parse_method(m, "methods") for m in cfg.methods]  # a typo fails before encoding
    encoder = Encoder(EncoderSpec(cfg.encoder, cfg.layer, cfg.pooling))
    recorded = start_recording() if cfg.ship_links else None
    bed = prepare_bible(cfg, encoder)
    note_other_aligner_build(bed.aligner or "")
    for src_tokens, tgt_tokens, links, seed, symmetrise, aligner in recorded or ():
        written = ship(cfg.ship_links, src_tokens, tgt_tokens, links, seed, symmetrise, aligner)
        print(f"crossalign: shipped links in {written}", file=sys.stderr)
    rows = [("char 3-4-gram TF-IDF (no model)", char_ngram_reference(bed.test)),
            ("unmapped", evaluate_mapping(bed.test, None, bed.lexicon,
                                          unseen_types=bed.unseen_types))]
    hits = {"unmapped": retrieval_hits(bed.test, None)}
    word_hits = {"unmapped": cbli_hits(bed.test, None)}
    out = Path(cfg.out_dir)
    for spec in specs:
        mapping = fit_arrays(bed.x, bed.y, spec, out / spec.slug, bed.provenance)
        rows.append((mapping.describe(), evaluate_mapping(bed.test, mapping, bed.lexicon,
                                                          unseen_types=bed.unseen_types)))
        hits[mapping.describe()] = retrieval_hits(bed.test, mapping)
        word_hits[mapping.describe()] = cbli_hits(bed.test, mapping)
    ident = encoder.identity()
    header = (f"crossalign demo: {cfg.encoder} layer {encoder.layer}, {cfg.pooling}-subword pooling; "
              f"Bible {bed.src_lang}–en, {len(bed.train)} training verses ({len(bed.x)} aligned word pairs), "
              f"{len(bed.test.corpus)} held-out verses")
    sig = str(TableSignature(EncoderSignature.of(ident), ident.pool_label, bed.train.fingerprint(),
                             align=bed.provenance.aligner, links=bed.alignment))
    base = dict(rows)["unmapped"]
    legend = (f"CBLI: gold = one-to-one links only ({int(base['cbli_pairs'])} occurrences); lex: "
              f"type vectors from held-out contexts, {int(base.get('lexicon_pairs', 0))} "
              "FreeDict-covered types, which may also occur in training; unseen: the "
              f"{int(base.get('lexicon_unseen_pairs', 0))} of them absent from the training verses")
    text = f"\n{header}\n{legend}\n\n{format_table(rows, demo_columns(bed.src_lang))}\n"
    if BASELINE in hits:  # each row against the strongest simple baseline, with an interval
        text += against_baseline(f"{bed.src_lang}→en P@1", "test verses", hits, rows, "delta",
                                 cfg.seed)
        text += against_baseline("CBLI P@1", "gold occurrences", word_hits, rows, "cbli_delta",
                                 cfg.seed)
    text += f"\nsignature: {sig}\n"
    report(text, {f"{name}/{k}": v for name, m in rows for k, v in m.items()}
           | {"train_pairs": len(bed.x), "seconds": time.time() - start}, out, cfg)
    return dict(rows)
