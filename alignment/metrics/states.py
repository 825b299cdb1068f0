"""Token vectors at several layers of an encoder or a crossalign export, each side mapped as
the export maps it: what the multi-layer metrics (MoverScore v1, BaryScore) read."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from alignment.errors import InputError


@dataclass
class Encoded:
    """One sentence: its tokens (special ones included), which are special, and its
    (layers, T, d) float32 vectors."""

    tokens: list[str]
    special: list[bool]
    states: np.ndarray


class LayerStates:
    """An encoder (HF name or path) or export (name or folder) read at ``layers``.

    A plain encoder is read at the layers asked for (``hidden_states`` indices; negative ones
    count from the end). An export is read at the one layer its map was fitted at, the map
    applied to the source side (and to the target side where the export maps both): a map
    fitted at one layer says nothing of the others."""

    def __init__(self, encoder: str | Path, layers: list[int], batch_size: int = 64,
                 device: str | None = None, bucket: bool = True,
                 parameter: str = "layers") -> None:
        from alignment.encoding.encoder import Encoder, EncoderSpec
        from alignment.export.named import resolve_export
        from alignment.xmover.scorer import is_export

        encoder = resolve_export(str(encoder))
        self.mapping, self.text, self.mapped_side = None, None, "src"
        if is_export(encoder):
            from alignment.export.remapped import load_remapped

            remapped = load_remapped(encoder, device=device, share={}, dtype="fp32")
            self.encoder, self.mapping, self.text = remapped.encoder, remapped.mapping, remapped.text
            self.mapped_side = remapped.meta.get("mapped_side", "src")
            self.layers = [self.encoder.layer]
        else:
            self.encoder = Encoder(EncoderSpec(str(encoder), -1), device=device, share={},
                                   dtype="fp32")
            depth = self.encoder.config.num_hidden_layers
            for layer in layers:
                if not -(depth + 1) <= layer <= depth:
                    raise InputError(f"layer {layer} out of range for an encoder of {depth} "
                                     "layers: give the layers to read" if parameter == "layers"
                                     else f"{len(layers)} layers asked for, the encoder has "
                                     f"{depth} (and its embeddings)", parameter=parameter)
            self.layers = [layer % (depth + 1) for layer in layers]
        self.batch_size, self.bucket = batch_size, bucket
        tok = self.encoder.tokenizer
        self.sentencepiece = tok.convert_tokens_to_ids("▁") in self.encoder.bare_markers

    def describe_mapping(self) -> str:
        if self.mapping is None:
            return "none"
        return f"{self.mapping.describe()}#{self.mapping.applied_fingerprint()}"

    def encode(self, sentences: list[str], side: str) -> list[Encoded]:
        """Each sentence's tokens and vectors; ``side``: ``src`` (an export's map applied),
        ``tgt`` (its target side's, where it maps both) or ``ref`` (no map: the same language
        as the output)."""
        from alignment.data.batching import make_batches

        enc = self.encoder.tokenizer(list(sentences), truncation=True,
                                     max_length=self.encoder.max_length,
                                     return_special_tokens_mask=True)
        lengths = [len(ids) for ids in enc["input_ids"]]
        out: list = [None] * len(sentences)
        tok = self.encoder.tokenizer
        with torch.inference_mode():
            for batch in make_batches(lengths, self.batch_size, self.bucket):
                feats = [{k: enc[k][i] for k in ("input_ids", "attention_mask", "token_type_ids")
                          if k in enc} for i in batch]
                side_was, tok.padding_side = tok.padding_side, "right"
                padded = tok.pad(feats, return_tensors="pt")
                tok.padding_side = side_was
                padded = {k: v.to(self.encoder.device) for k, v in padded.items()}
                hidden = self.encoder.model(**padded, output_hidden_states=True).hidden_states
                host = torch.stack([hidden[layer] for layer in self.layers]).float().cpu().numpy()
                for k, i in enumerate(batch):
                    out[i] = Encoded(tok.convert_ids_to_tokens(enc["input_ids"][i]),
                                     [bool(m) for m in enc["special_tokens_mask"][i]],
                                     np.ascontiguousarray(host[:, k, :lengths[i]]))
        transform = self._transform(side)
        if transform is not None:
            for e in out:
                e.states = np.stack([transform(layer.astype(np.float64)).astype(np.float32)
                                     for layer in e.states])
        return out

    def _transform(self, side: str):
        if self.mapping is None or side == "ref":
            return None
        if side == "src":
            return lambda v: self.mapping.map_array(v, "src")
        return (lambda v: self.mapping.map_array(v, "tgt")) if self.mapped_side == "both" else None

    def signature_fields(self, form: str = "src") -> dict[str, object]:
        """Encoder, layers and the map as applied: none against a reference (``form`` ref)."""
        ident = self.encoder.identity()
        return {"enc": f"{ident.encoder}@{ident.revision}",
                "L": ",".join(str(layer) for layer in self.layers),
                "map": self.describe_mapping() if form == "src" else "none"}
