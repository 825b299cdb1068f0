"""Target-side language-model fluency: mean token log-likelihood under any HF causal LM."""
from __future__ import annotations

import warnings

import numpy as np
import torch

from alignment.encoding.device import resolve_device
from alignment.data.batching import make_batches
from alignment.encoding.encoder import allow_download, load_failure, resolve_encoder, weights_fingerprint


def pad_ids(ids: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded (input ids, attention mask) of one batch of token-id lists."""
    inp = torch.full((len(ids), max(len(x) for x in ids)), pad, dtype=torch.long)
    mask = torch.zeros_like(inp)
    for k, x in enumerate(ids):
        inp[k, :len(x)] = torch.tensor(x, dtype=torch.long)
        mask[k, :len(x)] = 1
    return inp, mask


def token_log_likelihoods(model, inp: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """log p(token_t | prefix) for t = 2..n, zero on padding, and the (float) mask of real
    predictions; both (batch, length − 1)."""
    logits = model(input_ids=inp, attention_mask=mask).logits.float()
    logp = torch.log_softmax(logits[:, :-1], -1).gather(-1, inp[:, 1:, None])[..., 0]
    valid = mask[:, 1:].float()
    return logp * valid, valid


class LanguageModelScorer:
    """Mean natural-log likelihood of each sentence's tokens 2..n given their prefixes (n − 1
    predictions; a one-token sentence scores 0). Every sentence of a batch is scored; a
    sentence longer than the model's context is scored on its first ``context`` tokens (with a
    warning that says how many were cut)."""

    def __init__(self, name: str, device: str | None = None, batch_size: int = 16) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source, local = resolve_encoder(name, what="lm")
        kwargs = {"local_files_only": not (allow_download() or local)}
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            self.model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
        except (OSError, ValueError) as err:
            raise load_failure(name, local, err, what="lm", label="language model") from None
        self.name = name
        self.revision = getattr(self.model.config, "_commit_hash", None) or (
            weights_fingerprint(source) if local else None)
        self.device = resolve_device(device, "device")
        self.model.to(self.device).eval()
        self.batch_size = batch_size
        cfg = self.model.config
        self.context = getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None)

    def score(self, sentences: list[str]) -> np.ndarray:
        ids = [self.tokenizer(s, add_special_tokens=False)["input_ids"] for s in sentences]
        if self.context:
            cut = sum(len(x) > self.context for x in ids)
            if cut:
                warnings.warn(f"{cut} of {len(ids)} sentences are longer than the LM's context of "
                              f"{self.context} tokens and were scored on their first {self.context}",
                              stacklevel=2)
                ids = [x[:self.context] for x in ids]
        out = np.zeros(len(sentences))
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id if self.tokenizer.eos_token_id is not None else 0
        with torch.inference_mode():
            for batch in make_batches([len(x) for x in ids], self.batch_size, True):
                if max(len(ids[i]) for i in batch) < 2:
                    continue
                inp, mask = pad_ids([ids[i] for i in batch], pad)
                logp, valid = token_log_likelihoods(self.model, inp.to(self.device), mask.to(self.device))
                mean = logp.sum(1) / valid.sum(1).clamp_min(1)
                for k, i in enumerate(batch):
                    out[i] = float(mean[k]) if len(ids[i]) > 1 else 0.0
        return out
