"""The sentence-level term: cosine between the encoder's own sentence embeddings of a source
and its hypothesis (the mean over every token of one layer, the pooling e5 and most sentence
encoders are trained with) — the whole-sentence view that word-level transport does not take.
It reads no token map (a map fitted to one layer's token vectors says nothing about another
layer's sentence means); a sentence map (``sentence_map.SentenceMap``), fitted on sentence
vectors of parallel text, moves one language's sentences to where their translations lie."""
from __future__ import annotations

import numpy as np
import torch

from alignment.data.batching import make_batches
from alignment.encoding.forward import hidden_state
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
        self.sentence_map = None  # a SentenceMap (see ``with_map``)
        self.space: SentenceSimilarity | None = None  # the map's other encoder, where it has one
        self.mapped_side = "src"
        config = getattr(encoder, "config", None) or encoder.model.config  # not the weights
        depth = config.num_hidden_layers
        if not -(depth + 1) <= layer <= depth:
            raise InputError(f"sentence layer {layer} out of range for an encoder with {depth} "
                             "layers", parameter="sentence-layer")
        self.encoder, self.layer = encoder, layer % (depth + 1)
        self.prefix = PREFIXES.get(encoder.spec.name, "") if prefix is None else prefix
        self.batch_size = batch_size

    def describe(self) -> str:
        """The term in a signature: ``L12,mean,prefix=query:`` (``,map:KIND:xx>yy#FP`` with a
        sentence map; ``@hyp`` where the hypothesis side is the one mapped)."""
        prefix = f",prefix={self.prefix.strip()}" if self.prefix else ""
        if self.sentence_map is None:
            return f"L{self.layer},mean{prefix}"
        side = "" if self.mapped_side == "src" else "@hyp"
        return f"L{self.layer},mean{prefix},map:{self.sentence_map.describe()}{side}"

    def with_map(self, sentence_map, languages: tuple[str, str] | None = None,
                 device: str | None = None) -> "SentenceSimilarity":
        """This term through ``sentence_map``: the side in the map's mapped language (the
        source unless ``languages`` say the hypothesis is) is mapped, the other encoded in the
        map's space (this encoder, or the map's own ``space`` encoder). A map made for
        another encoder, layer or prefix is refused."""
        own = {"encoder": self.encoder.spec.name, "layer": self.layer, "prefix": self.prefix}
        made = {k: sentence_map.student.get(k) for k in own}
        if made != own:
            raise InputError(f"the sentence map was fitted on {made}, not on this encoder's "
                             f"{own}", parameter="sentence-map")
        if languages is not None:
            langs = (sentence_map.mapped_lang, sentence_map.other_lang)
            if tuple(languages) not in (langs, langs[::-1]):
                raise InputError(f"the sentence map is for {langs[0]}-{langs[1]}, not "
                                 f"{languages[0]}-{languages[1]}", parameter="sentence-map")
            self.mapped_side = "src" if languages[0] == sentence_map.mapped_lang else "hyp"
        self.sentence_map = sentence_map
        self.space = None  # a map without its own space reads this encoder's
        if sentence_map.space is not None:
            from alignment.encoding.encoder import load_encoder

            space = sentence_map.space
            self.space = SentenceSimilarity(load_encoder(space["encoder"], device=device),
                                            space["layer"], space["prefix"], self.batch_size)
        return self

    def side_vectors(self, sentences: list[str], side: str, cache=None) -> np.ndarray:
        """The vectors of one side (``src``/``hyp``): the mapped side by this encoder, the
        other by the map's space encoder where it has one; ``cache``: a runtime's
        (``alignment.xmover.reuse.Cache``) that keeps them."""
        term = self.space if self.space is not None and side != self.mapped_side else self
        return term.kept_vectors(sentences, cache)

    def producer(self) -> str:
        """What made these vectors: the encoder as it runs, the layer and the prefix."""
        from .reuse import encoder_producer

        return f"sentence|{encoder_producer(self.encoder)}|L{self.layer}|{self.prefix!r}"

    def kept_vectors(self, sentences: list[str], cache=None, progress: bool = False,
                     desc: str = "sentence vectors") -> np.ndarray:
        """``vectors``, as ``cache`` keeps them (None: computed)."""
        compute = lambda s: self.vectors(s, progress, desc)  # noqa: E731
        return compute(sentences) if cache is None else cache.array(
            self.producer(), list(sentences), compute, ndim=2)

    def similarity(self, src: np.ndarray, hyp: np.ndarray) -> np.ndarray:
        """The term from both sides' ``side_vectors``: their cosine, through the map if any."""
        if self.sentence_map is None:
            return (src * hyp).sum(1)
        if self.mapped_side == "src":
            return self.sentence_map.similarity(src, hyp)
        return self.sentence_map.similarity(hyp, src)

    def vectors(self, sentences: list[str], progress: bool = False,
                desc: str = "sentence vectors") -> np.ndarray:
        """One unit-length vector a sentence; the same whatever the batch size or order
        (``progress``: a bar on stderr)."""
        from tqdm.auto import tqdm

        tokenizer, model = self.encoder.tokenizer, self.encoder.model
        enc = tokenizer([self.prefix + s for s in sentences], truncation=True,
                        max_length=self.encoder.max_length)
        out = np.zeros((len(sentences), model.config.hidden_size), dtype=np.float64)
        device = self.encoder.device
        with torch.inference_mode():
            batches = make_batches([len(ids) for ids in enc["input_ids"]], self.batch_size)
            for batch in tqdm(batches, desc=desc, unit="batch", disable=not progress, leave=False):
                padded = tokenizer.pad({k: [enc[k][i] for i in batch] for k in enc.keys()},
                                       return_tensors="pt")
                padded = {k: v.to(device) for k, v in padded.items()}
                states = hidden_state(model, padded, self.layer).float()
                mask = padded["attention_mask"].unsqueeze(-1).to(states.dtype)
                means = (states * mask).sum(1) / mask.sum(1).clamp(min=1)
                out[batch] = means.float().cpu().numpy()
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)

    def score(self, sources: list[str], hypotheses: list[str]) -> np.ndarray:
        """The cosine of every source's vector with its hypothesis's, in [-1, 1]."""
        return self.similarity(self.side_vectors(sources, "src"),
                               self.side_vectors(hypotheses, "hyp"))
