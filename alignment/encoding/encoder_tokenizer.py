"""What an encoder's data is tokenised with — its subword tokenizer, word splitter, layer and
length limits — loaded from the encoder's files without its weights, so data can be prepared
(and identified) before, and apart from, the model that a module owns and trains."""
from __future__ import annotations

from dataclasses import dataclass

from alignment.catalogue import check_choice
from alignment.data.tokenize import Tokenizer
from alignment.errors import InputError
from alignment.encoding.identity import EncoderIdentity
from .hub import allow_download, load_failure, resolve_encoder, usable_length, weights_fingerprint
from .pooling import POOLINGS
from .subwords import bare_marker_ids


@dataclass(frozen=True)
class EncoderSpec:
    """Everything that determines the word vectors an encoder produces."""

    name: str
    layer: int = -1
    pooling: str = "first"
    max_length: int = 512
    revision: str | None = None

    def __post_init__(self) -> None:
        check_choice(self.pooling, POOLINGS, "subword pooling", "pooling")


class EncoderTokenizer:
    """An encoder's tokenizer and config (no weights): the chosen layer as an index, the
    usable input length, the revision and the identity that vectors, caches and exports carry."""

    def __init__(self, spec: EncoderSpec, word_tokenizer: Tokenizer | None = None,
                 share: dict | None = None) -> None:
        """``share``: a pool of what was loaded (a runtime's ``cache.weights``): the config and
        tokenizer of an encoder of the same files read once for every scorer of the pool (a
        multilingual tokenizer costs seconds and ~250 MB a copy)."""
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a bar per file is noise on every command
        self.spec = spec
        self.word_tokenizer = word_tokenizer or Tokenizer()
        self.source, self.local = resolve_encoder(spec.name)
        self.load_options = {"revision": spec.revision,
                             "local_files_only": not (allow_download() or self.local)}
        key = ("encoder files", self.source, spec.revision)
        if share is not None and key in share:
            self.config, self.tokenizer = share[key]
        else:
            self.config, self.tokenizer = self._read()
            if share is not None:
                share[key] = (self.config, self.tokenizer)
        if not self.tokenizer.is_fast:
            raise InputError(f"encoder '{spec.name}' has no fast tokenizer (needed for word pooling)",
                             parameter="encoder")
        n_layers = self.config.num_hidden_layers
        if not -(n_layers + 1) <= spec.layer <= n_layers:
            raise InputError(f"layer {spec.layer} out of range for '{spec.name}', which has "
                             f"{n_layers} layers (0 = embeddings, 1..{n_layers}, or negative)",
                             parameter="layer")
        self.layer = spec.layer % (n_layers + 1)
        self.max_length = usable_length(self.config, self.tokenizer, spec.max_length)
        self.revision = (getattr(self.config, "_commit_hash", None) or spec.revision
                         or (weights_fingerprint(self.source) if self.local else None))
        self.bare_markers = bare_marker_ids(self.tokenizer)

    def _read(self):
        from transformers import AutoConfig, AutoTokenizer

        try:
            return (AutoConfig.from_pretrained(self.source, **self.load_options),
                    AutoTokenizer.from_pretrained(self.source, use_fast=True, **self.load_options))
        except Exception as err:  # missing files, or a damaged config/tokenizer.json (any parser's)
            raise load_failure(self.spec.name, self.local, err) from None

    @property
    def dim(self) -> int:
        return int(self.config.hidden_size)

    def identity(self) -> EncoderIdentity:
        """What identifies these vectors: part of cache keys, exports and signatures."""
        return EncoderIdentity(self.spec.name, self.revision, self.layer, self.spec.pooling,
                               self.max_length, **self.word_tokenizer.settings(),
                               subwords="no-bare-marker" if self.bare_markers else None)

    def tokenize_words(self, sentences: list[str]) -> list[list[str]]:
        return [self.word_tokenizer(s) for s in sentences]
