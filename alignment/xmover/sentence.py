"""The sentence-level term: cosine between the encoder's own sentence embeddings of a source
and its hypothesis (the mean over every token of one layer, the pooling e5 and most sentence
encoders are trained with) — the whole-sentence view that word-level transport does not take.
It reads no map: a map fitted to one layer's token vectors says nothing about another layer's
sentence means."""
from __future__ import annotations

import numpy as np
import torch

from alignment.data.batching import make_batches
from alignment.errors import InputError

# the text an encoder's model card asks to put before every input (e5: 'query: ' or 'passage: ')
PREFIXES = {"multilingual-e5-small-q4": "query: "}


class SentenceSimilarity:
    """Unit-length sentence vectors of ``encoder`` (an ``Encoder``: its model and tokenizer) at
    ``layer`` (default: the last), mean-pooled over the attention mask, and the cosine of each
    source with its hypothesis. ``prefix``: text put before every sentence (default: the
    model card's, ``PREFIXES``)."""

    def __init__(self, encoder, layer: int = -1, prefix: str | None = None,
                 batch_size: int = 64) -> None:
        depth = encoder.model.config.num_hidden_layers
        if not -(depth + 1) <= layer <= depth:
            raise InputError(f"sentence layer {layer} out of range for an encoder with {depth} "
                             "layers", parameter="sentence-layer")
        self.encoder, self.layer = encoder, layer % (depth + 1)
        self.prefix = PREFIXES.get(encoder.spec.name, "") if prefix is None else prefix
        self.batch_size = batch_size

    def describe(self) -> str:
        """The term in a signature: ``L12,mean,prefix=query:``."""
        prefix = f",prefix={self.prefix.strip()}" if self.prefix else ""
        return f"L{self.layer},mean{prefix}"

    def vectors(self, sentences: list[str]) -> np.ndarray:
        """One unit-length vector a sentence; the same whatever the batch size or order."""
        tokenizer, model = self.encoder.tokenizer, self.encoder.model
        enc = tokenizer([self.prefix + s for s in sentences], truncation=True,
                        max_length=self.encoder.max_length)
        out = np.zeros((len(sentences), model.config.hidden_size), dtype=np.float64)
        device = self.encoder.device
        with torch.inference_mode():
            for batch in make_batches([len(ids) for ids in enc["input_ids"]], self.batch_size):
                padded = tokenizer.pad({k: [enc[k][i] for i in batch] for k in enc.keys()},
                                       return_tensors="pt")
                padded = {k: v.to(device) for k, v in padded.items()}
                states = model(**padded, output_hidden_states=True).hidden_states[self.layer]
                mask = padded["attention_mask"].unsqueeze(-1).to(states.dtype)
                means = (states * mask).sum(1) / mask.sum(1).clamp(min=1)
                out[batch] = means.float().cpu().numpy()
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)

    def score(self, sources: list[str], hypotheses: list[str]) -> np.ndarray:
        """The cosine of every source's vector with its hypothesis's, in [-1, 1]."""
        return (self.vectors(sources) * self.vectors(hypotheses)).sum(1)
