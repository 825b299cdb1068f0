"""A small causal LM trained on monolingual text, for XMoverScore's ⊕ LM fluency term where no
pretrained LM exists (low-resource targets, offline machines). It is saved as an ordinary HF
model directory, so ``crossalign score --lm DIR`` loads it like GPT-2."""
from __future__ import annotations

import json
import math
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from alignment.errors import InputError

BOUNDARY = "<|endoftext|>"
LM_FILE = "lm.json"


@dataclass
class LanguageModelConfig:
    """Tokenizer and GPT-2-shaped model sizes; the defaults fit ~1M tokens on a CPU in minutes."""

    vocab_size: int = 8000
    layers: int = 2
    width: int = 128
    heads: int = 4
    context: int = 128
    epochs: int = 3
    batch_size: int = 64
    lr: float = 1e-3
    val_fraction: float = 0.02
    seed: int = 0

    def check(self) -> None:
        for name in ("vocab_size", "layers", "width", "heads", "context", "epochs", "batch_size"):
            if getattr(self, name) < 1:
                raise InputError("must be >= 1", parameter=name)
        if self.width % self.heads:
            raise InputError(f"width {self.width} is not divisible by heads {self.heads}", parameter="width")
        if not 0.0 < self.val_fraction < 0.5:
            raise InputError("must be in (0, 0.5)", parameter="val_fraction")


def _causal_lm_module(model, lr: float):
    """A LightningModule for next-token cross-entropy over padded batches (padding ignored);
    built on demand so that importing the config (for the CLI's help) stays light."""
    import pytorch_lightning as pl
    import torch

    class CausalLMModule(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def training_step(self, batch, batch_idx: int):
            ids, mask = batch
            loss = self.model(input_ids=ids, attention_mask=mask,
                              labels=ids.masked_fill(mask == 0, -100)).loss
            self.log("train_loss", loss, on_step=False, on_epoch=True, batch_size=len(ids))
            return loss

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=lr, weight_decay=0.01)

    return CausalLMModule()


def train_language_model(text: str | Path, out: str | Path, cfg: LanguageModelConfig | None = None,
                         progress: bool = True, overwrite: bool = False) -> dict:
    """Train tokenizer + model on ``text`` (one sentence per line) and save both to ``out``
    (atomically), with ``lm.json``: settings, data fingerprint, held-out perplexity, signature.
    ``out`` may be new, empty or a previous LM folder (``overwrite``: also one from before
    outputs listed their files); a file crossalign did not write is never deleted."""
    import numpy as np
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from alignment.atomic import atomic_dir, check_output_dir
    from alignment.data.corpus import fingerprint_lines, read_lines
    from alignment.signature import LanguageModelSignature

    from train.ground.trainer import quiet_trainer

    cfg = cfg or LanguageModelConfig()
    cfg.check()
    check_output_dir(out, LM_FILE, overwrite, inputs=(text,))  # before any training
    lines = read_lines(text)
    if len(lines) < 50:
        raise InputError(f"{len(lines)} lines is too little text to train a language model", path=text)
    order = np.random.default_rng(cfg.seed).permutation(len(lines))
    n_val = max(1, int(cfg.val_fraction * len(lines)))
    val_lines = [lines[i] for i in sorted(order[:n_val])]
    train_lines = [lines[i] for i in sorted(order[n_val:])]

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(train_lines, trainers.BpeTrainer(
        vocab_size=cfg.vocab_size, special_tokens=[BOUNDARY], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOUNDARY, eos_token=BOUNDARY,
                                        pad_token=BOUNDARY, unk_token=BOUNDARY)

    torch.manual_seed(cfg.seed)
    model = GPT2LMHeadModel(GPT2Config(
        vocab_size=tok.get_vocab_size(), n_positions=cfg.context, n_embd=cfg.width,
        n_layer=cfg.layers, n_head=cfg.heads, bos_token_id=0, eos_token_id=0, pad_token_id=0))
    train_batches = _batches(tokenizer, train_lines, cfg)
    module = _causal_lm_module(model, cfg.lr)
    loader = torch.utils.data.DataLoader(train_batches, batch_size=None, shuffle=True,
                                         generator=torch.Generator().manual_seed(cfg.seed))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(num_workers|does not have many workers|LeafSpec).*")
        quiet_trainer(max_epochs=cfg.epochs, enable_progress_bar=progress).fit(module, loader)
    model.eval()
    val_ppl = _perplexity(model, _batches(tokenizer, val_lines, cfg))

    meta = {"config": asdict(cfg), "data": fingerprint_lines(lines), "lines": len(lines),
            "train_lines": len(train_lines), "val_lines": len(val_lines),
            "val_perplexity": val_ppl, "parameters": sum(p.numel() for p in model.parameters())}
    meta["signature"] = str(LanguageModelSignature(
        f"gpt2-L{cfg.layers}-d{cfg.width}-h{cfg.heads}-v{tok.get_vocab_size()}", meta["data"],
        cfg.epochs, cfg.lr, cfg.seed))
    with atomic_dir(out, LM_FILE, overwrite, inputs=(text,)) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / LM_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return meta


def _batches(tokenizer, lines: list[str], cfg: LanguageModelConfig) -> list:
    """Padded (ids, mask) batches of similar length; sentences cut to the context size."""
    from alignment.data.batching import make_batches
    from alignment.xmover.lm import pad_ids

    ids = [tokenizer(s, add_special_tokens=False)["input_ids"][:cfg.context] for s in lines]
    return [pad_ids([ids[i] for i in batch], 0)
            for batch in make_batches([len(x) for x in ids], cfg.batch_size, bucket=True)]


def _perplexity(model, batches: list) -> float:
    """exp of the mean next-token negative log-likelihood over every predicted token."""
    import torch

    from alignment.xmover.lm import token_log_likelihoods

    total, count = 0.0, 0
    with torch.inference_mode():
        for ids, mask in batches:
            logp, valid = token_log_likelihoods(model, ids, mask)
            total -= float(logp.sum())
            count += int(valid.sum())
    return math.exp(total / max(count, 1))
