"""Arithmetic precision of a model's forward pass: ``fp32`` (the published numbers), ``bf16``
(weights and matrix products in bfloat16, read back as float32: on a GPU, and on a CPU whose
cores multiply bf16 natively — AVX-512 BF16 or AMX — about 3x fp32's rate on the products
that dominate; a CPU without them emulates it, slower than fp32, with a warning: the numbers
of a bf16 card can still be reproduced there), ``auto`` (a scorer's default: bf16 where the
device multiplies it natively, else fp32; ``$CROSSALIGN_PRECISION`` pins it) or ``int8`` (opt-in,
CPU: every linear layer's weights in int8 with a scale per output row, activations quantised on
the fly with one scale per batch, so a sentence's score also depends on the sentences batched
with it). Any precision but fp32 moves the scores a little, and the signature says
``prec:bf16`` / ``prec:int8``."""
from __future__ import annotations

import os
import warnings

from alignment.catalogue import check_choice
from alignment.errors import InputError

PRECISIONS = ("fp32", "bf16", "int8")
AUTO = "auto"
PRECISION_VARIABLE = "CROSSALIGN_PRECISION"
_WARNED: list[str] = []


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bf16 natively (AVX-512 BF16 or AMX tiles), as oneDNN does."""
    import torch

    probes = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in probes)


def native_bf16(device) -> bool:
    """Whether ``device`` multiplies bf16 natively: a GPU that supports it, a CPU with AVX-512
    BF16 or AMX."""
    import torch

    kind = getattr(device, "type", str(device))
    if kind == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    return kind == "cpu" and cpu_has_bf16()


def asked_precision(value: str | None) -> str | None:
    """The precision an option or a parameter pins: None where it asks for ``auto``."""
    return None if value in (None, AUTO) else value


def pinned_precision() -> str | None:
    """``$CROSSALIGN_PRECISION`` (``auto`` read as unset), checked; None when unset."""
    value = os.environ.get(PRECISION_VARIABLE, "").strip().lower()
    if not value:
        return None
    check_choice(value, (AUTO, "fp32", "bf16"), "precision", PRECISION_VARIABLE)
    return None if value == AUTO else value


def automatic_precision(device=None) -> str:
    """The precision a scorer runs in when neither an option nor its setting chooses one:
    ``$CROSSALIGN_PRECISION`` if set, else bf16 where ``device`` multiplies it natively (its
    agreement with people is within ±.001 of fp32 on every measured pair: docs/scale.md), else
    fp32 (``device`` None: a GPU if there is one)."""
    from alignment.encoding.device import resolve_device

    return pinned_precision() or ("bf16" if native_bf16(resolve_device(device)) else "fp32")


def check_precision(precision: str, device, parameter: str = "precision") -> str:
    """``precision`` if known and runnable on ``device``; else a clear error."""
    check_choice(precision, PRECISIONS, "precision", parameter)
    kind = getattr(device, "type", str(device))
    if precision == "int8" and kind != "cpu":
        raise InputError("int8 runs on the CPU only (a GPU computes in bf16: --precision bf16)",
                         parameter=parameter)
    if precision == "bf16" and kind == "cpu" and not _WARNED and not cpu_has_bf16():
        _WARNED.append(precision)  # once a process
        warnings.warn("bf16 on this CPU is emulated (it has neither AVX-512 BF16 nor AMX): the "
                      "same numbers as native bf16, but slower than fp32", EmulatedPrecision,
                      stacklevel=3)
    return precision


class EmulatedPrecision(UserWarning):
    """A precision this hardware computes only in emulation (slower, same numbers)."""


def with_precision(model, precision: str):
    """``model`` itself for fp32; in bfloat16 for bf16 (weights and products; a caller reads
    the outputs back as float32); a dynamically quantised copy (int8 ``nn.Linear``) for int8."""
    if precision == "fp32":
        return model
    import torch

    if precision == "bf16":
        return model.to(torch.bfloat16).eval()
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
