"""Arithmetic precision of a model's forward pass: ``fp32`` (the default, the published numbers)
or ``int8`` (opt-in, CPU: every linear layer's weights in int8, activations quantised per
batch; about 1.5× faster on a 2-core AVX2 CPU, and the scores move — its signature says so)."""
from __future__ import annotations

import warnings

from alignment.errors import InputError

PRECISIONS = ("fp32", "int8")


def check_precision(precision: str, device, parameter: str = "precision") -> str:
    """``precision`` if known and runnable on ``device``; else a clear error."""
    if precision not in PRECISIONS:
        raise InputError(f"unknown precision '{precision}' (known: {', '.join(PRECISIONS)})",
                         parameter=parameter)
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
        from torch.ao.quantization import quantize_dynamic

        return quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8).eval()


def precision_tag(precision: str) -> str | None:
    """The signature's ``prec`` field: None (absent) for fp32, so fp32 signatures read as
    before."""
    return None if precision == "fp32" else precision
