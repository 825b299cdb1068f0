"""Joint-Align: fine-tune the encoder itself so that aligned words of each language pair match,
with a regulariser that keeps the pivot language's vectors close to the frozen original model
(Cao et al. 2020; Zhao et al. 2021). Data: ``train.data.parallel_text.ParallelTextDataModule``."""
from __future__ import annotations

import copy

import pytorch_lightning as pl
import torch

from alignment.encoding.encoder import Encoder
from alignment.evaluation.criteria import CRITERIA, score_criteria
from alignment.errors import InputError, TrainingDiverged
from alignment.mappings.method import DataKind
from alignment.encoding.joint_align import PairBatch, joint_align_loss, pooled_words, side_states


class JointAlign(pl.LightningModule):
    """Fine-tunes the encoder the data is tokenised for (its layer and subword pooling).

    Loss per global batch: Σ_links ‖f(src word) − f(pivot word)‖² + ``reg_weight`` ·
    Σ_pivot tokens ‖f(t) − f₀(t)‖², both divided by the global batch's sentence count. f₀ (the
    original model, frozen) runs on the fly on each pivot batch: no cache to build or keep in
    step with the tokenisation, one extra forward pass. Adam (β ``betas``), linear warm-up over
    ``warmup`` of the steps then linear decay to 0. Dropout is set to ``dropout`` (0: the same
    seed gives the same model on 1 or N processes). Logged at each validation: the criteria of
    ``alignment.evaluation.criteria`` on the aligned validation words (mean over corpora, and per source
    language), the pivot's drift ``pivot_drift`` (mean squared distance to f₀ per pivot token)
    and ``pivot_cosine`` (mean cosine to f₀)."""

    data = DataKind.PARALLEL_TEXT  # fine-tunes the encoder on parallel sentences

    def __init__(self, lr: float = 1e-4, betas: tuple[float, float] = (0.9, 0.98),
                 weight_decay: float = 0.0, warmup: float = 0.1, reg_weight: float = 1.0,
                 dropout: float | None = 0.0, gradient_checkpointing: bool = False,
                 semantic_top: float = 1000, semantic_mutual: bool = False) -> None:
        super().__init__()
        if not lr > 0:
            raise InputError(f"must be > 0, got {lr}", parameter="lr")
        if not 0 <= warmup < 1:
            raise InputError(f"the warm-up share must be in [0, 1), got {warmup}", parameter="warmup")
        if reg_weight < 0:
            raise InputError(f"must be >= 0, got {reg_weight}", parameter="reg_weight")
        if dropout is not None and not 0 <= dropout < 1:
            raise InputError(f"must be in [0, 1) or null (the model's own), got {dropout}",
                             parameter="dropout")
        self.save_hyperparameters()
        self.encoder: Encoder | None = None  # tokenizer + model; the model is trained
        self.encoder_model: torch.nn.Module | None = None
        self._original: torch.nn.Module | None = None
        self._val: list[list[tuple[torch.Tensor, torch.Tensor]]] = []
        self._drift: list[tuple[float, float, int]] = []

    # -- model ------------------------------------------------------------------------------

    def setup(self, stage: str) -> None:
        if "FSDP" in type(self.trainer.strategy).__name__:
            raise InputError("Joint-Align runs on one device or data-parallel (strategy: ddp); "
                             "with fsdp, step selection and the HF export would see sharded "
                             "weights — not supported yet (gradient checkpointing and bf16 fit "
                             "XLM-R large on one 80 GB GPU)", parameter="trainer.strategy")

    def configure_model(self) -> None:
        """Build the encoder the data is tokenised for (its spec and word splitter) and own
        it from here on: set dropout, keep a frozen copy as the original."""
        if self.encoder_model is not None:
            return
        data = self.trainer.datamodule.tokenization
        self.encoder = Encoder(data.spec, device="cpu", word_tokenizer=data.word_tokenizer)
        if self.encoder.identity() != data.identity():
            raise InputError(f"the encoder loaded for training ({self.encoder.identity()}) is "
                             f"not the one the data was tokenised for ({data.identity()})",
                             parameter="encoder")
        model = self.encoder.model
        if self.hparams.dropout is not None:
            for m in model.modules():
                if isinstance(m, torch.nn.Dropout):
                    m.p = self.hparams.dropout
        if self.hparams.gradient_checkpointing:
            model.gradient_checkpointing_enable()
        # the frozen original: not a submodule (kept out of checkpoints, optimiser and DDP)
        object.__setattr__(self, "_original", copy.deepcopy(model).eval().requires_grad_(False))
        self.encoder_model = model.train().requires_grad_(True)
        freeze_unused(model, self.encoder.layer, self.encoder.tokenizer)

    @property
    def selectable(self) -> torch.nn.Module:
        """What model selection keeps and restores: the encoder's weights."""
        assert self.encoder_model is not None
        return self.encoder_model

    def on_fit_start(self) -> None:
        assert self._original is not None
        # the frozen original in the trained model's dtype too (a 64-true or bf16-true run
        # converts only submodules), so f(t) - f0(t) is 0 at the start, not rounding
        dtype = next(self.encoder_model.parameters()).dtype
        self._original.to(device=self.device, dtype=dtype)
        self.encoder.device = self.device

    def original(self) -> torch.nn.Module:
        assert self._original is not None
        return self._original

    # -- steps ------------------------------------------------------------------------------
    def _words(self, batch: PairBatch):
        layer, pooling = self.encoder.layer, self.encoder.spec.pooling
        s_states = side_states(self.encoder_model, batch.src, layer)
        t_states = side_states(self.encoder_model, batch.tgt, layer)
        return (pooled_words(s_states, batch.src, pooling), pooled_words(t_states, batch.tgt, pooling),
                t_states)

    def training_step(self, item, batch_idx: int) -> torch.Tensor:
        batch, global_size = item
        src_words, tgt_words, t_states = self._words(batch)
        with torch.no_grad():
            t_original = side_states(self.original(), batch.tgt, self.encoder.layer)
        # divided by the global batch's sentences per process: DDP's gradient average then
        # equals one process's gradient on the whole batch
        per = global_size / self.trainer.world_size
        loss = joint_align_loss(src_words, tgt_words, batch.links, t_states, t_original,
                                batch.tgt.real_tokens, self.hparams.reg_weight, per)
        if not torch.isfinite(loss.total):
            raise TrainingDiverged(f"Joint-Align loss is not finite at step {self.global_step}; "
                                   f"lower lr (now {self.hparams.lr})", parameter="lr")
        self.log_dict({"loss": loss.total, "align_loss": loss.align, "reg_loss": loss.regulariser},
                      on_step=True, on_epoch=False, batch_size=batch.n_sentences, sync_dist=False)
        return loss.total

    def on_validation_epoch_start(self) -> None:
        self._val = [[] for _ in self.trainer.datamodule.data]
        self._drift = []

    def validation_step(self, item, batch_idx: int, dataloader_idx: int = 0) -> None:
        batch, _ = item
        src_words, tgt_words, t_states = self._words(batch)
        links = batch.links
        self._val[dataloader_idx].append((src_words[links[:, 0]].float().cpu(),
                                          tgt_words[links[:, 1]].float().cpu()))
        t_original = side_states(self.original(), batch.tgt, self.encoder.layer)
        real = batch.tgt.real_tokens
        now, before = t_states[real].float(), t_original[real].float()
        self._drift.append((float((now - before).pow(2).sum(1).sum()),
                            float(torch.nn.functional.cosine_similarity(now, before).sum()),
                            int(real.sum())))

    def on_validation_epoch_end(self) -> None:
        if not any(self._val):
            return
        per_corpus: dict[str, list[float]] = {name: [] for name in CRITERIA}
        logged: dict[str, float] = {}
        for data, pairs in zip(self.trainer.datamodule.data, self._val):
            if not pairs:
                continue
            x, y = torch.cat([p[0] for p in pairs]), torch.cat([p[1] for p in pairs])
            if not torch.isfinite(x).all() or not torch.isfinite(y).all():
                raise TrainingDiverged("non-finite validation vectors; lower lr", parameter="lr")
            values = score_criteria(x, y, self.hparams.semantic_top, self.hparams.semantic_mutual)
            for name, value in values.items():
                per_corpus[name].append(value)
                logged[f"{name}/{data.src_lang}"] = value
        for name, values in per_corpus.items():
            logged[name] = sum(values) / len(values)
        total = sum(n for _, _, n in self._drift)
        logged["pivot_drift"] = sum(d for d, _, _ in self._drift) / total
        logged["pivot_cosine"] = sum(c for _, c, _ in self._drift) / total
        self.log_dict(logged)

    # -- optimisation -----------------------------------------------------------------------
    def configure_optimizers(self):
        trainable = [p for p in self.encoder_model.parameters() if p.requires_grad]
        optimizer = torch.optim.Adam(trainable, lr=self.hparams.lr,
                                     betas=tuple(self.hparams.betas),
                                     weight_decay=self.hparams.weight_decay)
        total = max(1, int(self.trainer.estimated_stepping_batches))
        warm = int(self.hparams.warmup * total)

        def factor(step: int) -> float:
            if step < warm:
                return (step + 1) / warm
            return max(0.0, (total - step) / max(1, total - warm))

        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": schedule, "interval": "step"}}


def freeze_unused(model: torch.nn.Module, layer: int, tokenizer) -> list[str]:
    """Freeze the parameters the chosen layer's states do not depend on (a pooler, layers
    above ``layer``): they get no gradient, which data-parallel training refuses; returns
    their names."""
    ids = tokenizer("a b", return_tensors="pt")
    model.zero_grad(set_to_none=True)
    model(**ids, output_hidden_states=True).hidden_states[layer].float().sum().backward()
    unused = [n for n, p in model.named_parameters() if p.grad is None]
    for name, p in model.named_parameters():
        p.grad = None
        if name in unused:
            p.requires_grad_(False)
    return unused
