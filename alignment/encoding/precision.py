"""Arithmetic precision of a model's forward pass: ``fp32`` (the default, the published numbers)
or ``int8`` (opt-in, CPU: every linear layer's weights in int8 with a scale per output row,
activations quantised on the fly with one scale per batch, so a sentence's score also depends
on the sentences batched with it; the scores move, and the signature says ``prec:int8``)."""
from __future__ import annotations

import warnings

from alignment.catalogue import check_choice
from alignment.errors import InputError

PRECISIONS = ("fp32", "int8")


def check_precision(precision: str, device, parameter: str = "precision") -> str:
    """``precision`` if known and runnable on ``device``; else a clear error."""
    check_choice(precision, PRECISIONS, "precision", parameter)
    if precision == "int8" and getattr(device, "type", str(device)) != "cpu":
        raise InputError("int8 runs on the CPU only (a GPU already computes in bf16)",
                         parameter=parameter)
    return precision


def with_precision(model, precision: str):
    """``model`` itself for fp32; a dynamically quantised copy (int8 ``nn.Linear``) for int8."""
    if precision == "fp32":
        return model
    import torch

    with warnings.catch_warnings():  # torch.ao marks its eager quantisation API as legacy
        warnings.simplefilter("ignore")
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        # one scale per output row of a weight (per-tensor scales moved MiniLM's token vectors
        # to a cosine of 0.90 with fp32's, per-row ones to 0.95)
        return quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig},
                                dtype=torch.qint8).eval()


def precision_tag(precision: str) -> str | None:
    """The signature's ``prec`` field: None (absent) for fp32, so fp32 signatures read as
    before."""
    return None if precision == "fp32" else precision
