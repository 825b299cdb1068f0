"""HF encoder wrapper: load by name or path (offline first), pick a layer, pool subwords into words.

Layer convention: 0 is the embeddings output, 1..N the outputs of transformer layers 1..N
(``hidden_states[layer]``); negative values count from the end (-1 = last layer).
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

from alignment.data.batching import make_batches
from alignment.data.tokenize import Tokenizer
from .device import resolve_device
from alignment.errors import InputError
from .encoder_tokenizer import EncoderSpec, EncoderTokenizer
from .forward import hidden_state
from .precision import check_precision, with_precision
from .hub import (DOWNLOAD_HINT, NOT_WEIGHTS, PACKAGED_ENCODERS, allow_download,  # noqa: F401
                  encoder_depth, load_failure, looks_local, resolve_encoder, usable_length,
                  weights_fingerprint)
from .pooling import pool_subwords
from .subwords import content_word_ids

__all__ = ["Encoder", "EncoderSpec", "EncoderTokenizer", "load_encoder", "resolve_encoder",
           "encoder_depth", "allow_download", "weights_fingerprint"]


class Encoder(EncoderTokenizer):
    """A loaded encoder that turns tokenised sentences into per-word vectors at one layer."""

    def __init__(self, spec: EncoderSpec, device: str | None = None, dtype: str = "auto",
                 word_tokenizer: Tokenizer | None = None, share: dict | None = None,
                 precision: str = "fp32") -> None:
        """``share``: a pool of loaded weights for inference (a runtime's ``cache.weights``):
        the scorers of several rows or exports on one encoder load it once, when first run;
        never for a model that will be trained. ``precision``: ``fp32`` or the opt-in ``int8``
        (``alignment.encoding.precision``)."""
        self.device = resolve_device(device)  # before anything loads
        self.precision = check_precision(precision, self.device)
        super().__init__(spec, word_tokenizer, share=share)
        self._pool = share
        self._shared_key = ("encoder", self.source, self.revision, str(self.device), precision)
        # a shared (inference) encoder loads its weights when first run, so a scorer whose
        # vectors are all reused never loads them; any other loads them now
        self._model = share.get(self._shared_key) if share is not None else self._weights()
        self.autocast = (self.device.type == "cuda") if dtype == "auto" else dtype == "bf16"

    @property
    def model(self):
        """The HF model (loaded on first use where ``share``)."""
        if self._model is None:
            pool = self._pool if self._pool is not None else {}
            self._model = pool.get(self._shared_key) or self._weights()
            pool[self._shared_key] = self._model
        return self._model

    @model.setter
    def model(self, value) -> None:
        self._model = value

    def _weights(self):
        model = self._load()
        model.to(self.device).eval()
        return with_precision(model, self.precision)

    def _load(self):
        from safetensors import SafetensorError
        from transformers import AutoModel

        try:
            # the config already read with the tokenizer (not read from disk again)
            return AutoModel.from_pretrained(self.source, config=self.config, **self.load_options)
        except SafetensorError as err:  # a half-copied or damaged weights file
            raise InputError(f"cannot load encoder '{self.spec.name}': its weights file is "
                             f"damaged or incomplete ({str(err).splitlines()[0]})",
                             parameter="encoder") from None
        except OSError as err:
            raise load_failure(self.spec.name, self.local, err) from None

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
                      progress: bool = False, desc: str = "encoding", on_truncate=None
                      ) -> list[tuple[list[str], list[bool], np.ndarray]]:
        """Per sentence: its subword tokens (special tokens included), which of them are special,
        and their (T, d) float32 vectors at the chosen layer. Sentences longer than the encoder
        takes are cut: ``on_truncate`` gets their 1-based numbers (default: one warning)."""
        from tqdm.auto import tqdm

        enc = self.tokenizer(sentences, truncation=True, max_length=self.max_length,
                             return_special_tokens_mask=True, return_overflowing_tokens=False,
                             return_length=False)
        lengths = [len(ids) for ids in enc["input_ids"]]
        cut = sum(n >= self.max_length for n in lengths)
        if cut:
            full = self.tokenizer(sentences, add_special_tokens=True, verbose=False)["input_ids"]
            cut = [k + 1 for k, ids in enumerate(full) if len(ids) > self.max_length]
            if cut and on_truncate is not None:
                on_truncate(cut)
            elif cut:
                warnings.warn(truncation_message(cut, self.max_length, "the sentences"),
                              stacklevel=2)
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
            return hidden_state(self.model, padded, self.layer)

    def _pool_batch(self, states: torch.Tensor, batch: list[int], enc,
                    n_words: list[int]) -> list[np.ndarray]:
        """Pool subword states into word vectors for a whole batch on the device, then one
        copy to the host; words without any subword (truncated) become NaN rows."""
        seq = states.shape[1]
        starts = np.concatenate([[0], np.cumsum(n_words)])
        flat_pos, flat_word = [], []
        for k, i in enumerate(batch):
            word_ids = content_word_ids(enc["input_ids"][i], enc.word_ids(i), self.bare_markers)
            for t, w in enumerate(word_ids):
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


def truncation_message(lines: list[int], limit: int, where: str) -> str:
    """One line naming the over-long sentences (``lines``: 1-based) of ``where`` (a side or a
    file name)."""
    one = len(lines) == 1
    shown = ", ".join(map(str, lines[:10])) + (", …" if len(lines) > 10 else "")
    return (f"{len(lines)} {'line' if one else 'lines'} of {where} exceed{'s' if one else ''} "
            f"the encoder's {limit} subword pieces and {'is' if one else 'are'} scored on "
            f"the first {limit} ({'line' if one else 'lines'} {shown})")
