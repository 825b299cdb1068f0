"""From a parallel corpus to cached word alignments and cached word vectors, validated up front."""
from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

from alignment.data.corpus import ParallelCorpus, fingerprint_lines
from alignment.encoding.encoder import Encoder
from alignment.errors import InputError
from alignment.data.tokenize import Tokenizer
from alignment.data.vectors import WordVectors, cache_key, default_cache_dir, stored_made_by
from alignment.data.shipped_links import find_shipped, record, token_fingerprints
from alignment.data.word_align import (DEFAULT_SEED, Links, aligner_identity, eflomal_align, one_to_one,
                         read_pharaoh, write_pharaoh)


@dataclass
class PreparedCorpus:
    """A corpus with its tokens, word alignment and per-word vectors of both sides."""

    corpus: ParallelCorpus
    src_tokens: list[list[str]]
    tgt_tokens: list[list[str]]
    alignments: list[Links]
    src: WordVectors
    tgt: WordVectors

    def subset(self, indices: list[int], name: str | None = None) -> "PreparedCorpus":
        """The same data restricted to the sentence pairs at ``indices``."""
        return PreparedCorpus(self.corpus.subset(indices, name), [self.src_tokens[i] for i in indices],
                              [self.tgt_tokens[i] for i in indices],
                              [self.alignments[i] for i in indices], self.src.subset(indices),
                              self.tgt.subset(indices))


def tokenize_corpus(corpus: ParallelCorpus, tokenizer: Tokenizer) -> tuple[list[list[str]], list[list[str]]]:
    """Tokenise both sides; a sentence without tokens is an error naming its line."""
    src = [tokenizer(s) for s in corpus.src]
    tgt = [tokenizer(t) for t in corpus.tgt]
    for k, (s, t) in enumerate(zip(src, tgt), start=1):
        if not s or not t:
            raise InputError(f"sentence {k} of corpus '{corpus.name}' has no tokens on the "
                             f"{'source' if not s else 'target'} side", parameter="corpus")
    return src, tgt


def word_alignment(src_tokens: list[list[str]], tgt_tokens: list[list[str]],
                   alignment: str | Path = "eflomal", symmetrise: str = "grow-diag-final-and",
                   keep_one_to_one: bool = False, cache_dir: Path | None = None,
                   pharaoh_lines: int | None = None, seed: int | None = DEFAULT_SEED) -> list[Links]:
    """Links for every sentence pair: from a Pharaoh file (``pharaoh_lines``: the file covers
    that many pairs, of which these are the first), or from eflomal with sampler ``seed``
    (cached by content, aligner version and seed; an unseeded run is cached too)."""
    if str(alignment) != "eflomal":
        links = read_pharaoh(alignment, [len(s) for s in src_tokens], [len(t) for t in tgt_tokens],
                             total_lines=pharaoh_lines)
    else:
        fingerprints = token_fingerprints(src_tokens, tgt_tokens)
        key = hashlib.sha256(json.dumps({
            "src": fingerprints[0], "tgt": fingerprints[1],
            "aligner": aligner_identity(seed, symmetrise)}).encode()).hexdigest()[:24]
        path = (cache_dir or default_cache_dir()) / "alignments" / f"{key}.pharaoh"
        links = find_shipped(src_tokens, tgt_tokens, seed, symmetrise,
                             fingerprints=fingerprints)
        if links is None and path.is_file():
            try:
                links = read_pharaoh(path, [len(s) for s in src_tokens], [len(t) for t in tgt_tokens])
            except InputError as err:  # a damaged cache entry is rebuilt, not trusted
                warnings.warn(f"alignment cache entry unreadable ({err}); aligning again")
        if links is None:
            links = eflomal_align(src_tokens, tgt_tokens, symmetrise, seed=seed, cache_dir=cache_dir)
            write_pharaoh(path, links)
        record(src_tokens, tgt_tokens, links, seed, symmetrise)
    return [one_to_one(l) for l in links] if keep_one_to_one else links


def cache_entry(encoder: Encoder, sentences: list[str], cache_dir: Path | None = None,
                precision: str | None = None, device: str | None = None) -> tuple[Path, dict]:
    """Where one side's vectors are cached, and the record of what makes them (encoder
    identity, dimension, precision, device class, corpus content), stored in the entry;
    ``precision``/``device`` when something other than the encoder itself runs it."""
    made_by = {"identity": encoder.identity().as_dict(), "dim": encoder.dim,
               "precision": precision or ("bf16" if encoder.autocast else "fp32"),
               "device": device or encoder.device.type, "corpus": fingerprint_lines(sentences)}
    return (cache_dir or default_cache_dir()) / "vectors" / f"{cache_key(made_by)}.safetensors", \
        made_by


def read_cached(path: Path, made_by: dict, tokens: list[list[str]]) -> WordVectors | None:
    """The cached vectors if the entry was made by ``made_by`` for these sentences and its
    values are well formed; otherwise None, with a warning saying why it is rebuilt."""
    if not path.is_file():
        return None
    try:
        stored = stored_made_by(path)
        cached = WordVectors.load(path)
    except Exception as err:  # a truncated or damaged cache entry is rebuilt, not trusted
        warnings.warn(f"vector cache entry {path.name} unreadable ({type(err).__name__}); "
                      "encoding again")
        return None
    if stored != made_by or cached.vectors.ndim != 2 or cached.dim != made_by["dim"]:
        why = "was made by another encoder, layer, precision or corpus"
    elif not cached.well_formed():
        why = "holds non-finite values"
    elif len(cached.offsets) != len(tokens) + 1 or any(
            cached.offsets[i + 1] - cached.offsets[i] != len(t) for i, t in enumerate(tokens)):
        why = "does not fit the corpus"
    else:
        return cached
    warnings.warn(f"vector cache entry {path.name} {why}; encoding again")
    return None


def encode_side(encoder: Encoder, sentences: list[str], tokens: list[list[str]],
                cache_dir: Path | None = None, progress: bool = True, desc: str = "encoding",
                batch_size: int = 64) -> WordVectors:
    """Word vectors of one side, read from the cache when this (encoder, corpus) was seen before."""
    path, made_by = cache_entry(encoder, sentences, cache_dir)
    cached = read_cached(path, made_by, tokens)
    if cached is not None:
        return cached
    vectors = WordVectors.from_list(encoder.encode_words(tokens, batch_size=batch_size,
                                                         progress=progress, desc=desc))
    save_cache_entry(vectors, path, made_by)
    return vectors


def save_cache_entry(vectors: WordVectors, path: Path, made_by: dict) -> None:
    """Write a cache entry; a full disk or an unwritable cache folder is one line, not a
    traceback (nothing half-written is left: the write is atomic)."""
    from safetensors import SafetensorError

    try:
        vectors.save(path, made_by)
    except (OSError, SafetensorError) as err:
        why = getattr(err, "strerror", None) or str(err).strip().splitlines()[0]
        raise InputError(f"cannot write the vector cache ({why}); free space or set "
                         "CROSSALIGN_CACHE to another folder", path=path) from None


def prepare(corpus: ParallelCorpus, encoder: Encoder, alignment: str | Path = "eflomal",
            symmetrise: str = "grow-diag-final-and", keep_one_to_one: bool = False,
            cache_dir: Path | None = None, progress: bool = True,
            pharaoh_lines: int | None = None, align_seed: int | None = DEFAULT_SEED) -> PreparedCorpus:
    """Tokenise, align and encode a corpus; every check runs before the encoder does."""
    src_tokens, tgt_tokens = tokenize_corpus(corpus, encoder.word_tokenizer)
    links = word_alignment(src_tokens, tgt_tokens, alignment, symmetrise, keep_one_to_one, cache_dir,
                           pharaoh_lines, align_seed)
    src = encode_side(encoder, corpus.src, src_tokens, cache_dir, progress, f"encoding {corpus.name} src")
    tgt = encode_side(encoder, corpus.tgt, tgt_tokens, cache_dir, progress, f"encoding {corpus.name} tgt")
    return PreparedCorpus(corpus, src_tokens, tgt_tokens, links, src, tgt)
