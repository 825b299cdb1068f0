"""Compact mapping weights (``crossalign-mapping-2``): every tensor stored once. A tensor that
is an identity matrix or all zeros is declared rather than stored, and one bitwise equal to a
tensor already stored (a composed map equal to its only non-identity stage, the repeated
coupling masks of a flow) is declared a copy. Lossless: the rebuilt state is bit for bit the
saved one, and the fingerprint check on load proves it."""
from __future__ import annotations

from pathlib import Path

import torch

from alignment.errors import InputError

FORMAT = "crossalign-mapping-2"
_DTYPES = {str(t).removeprefix("torch."): t for t in
           (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool, torch.int64)}


def _is_identity(t: torch.Tensor) -> bool:
    return (t.dim() == 2 and t.shape[0] == t.shape[1] and t.is_floating_point()
            and torch.equal(t, torch.eye(t.shape[0], dtype=t.dtype)))


def _is_zeros(t: torch.Tensor) -> bool:
    return t.is_floating_point() and t.numel() > 0 and not t.any() \
        and not torch.signbit(t).any()  # -0.0 is stored: declared zeros come back as +0.0


def compact(tensors: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], dict[str, dict]]:
    """Split ``tensors`` into those to store and the declared rest (``{name: {"as":
    "identity" | "zeros" | "copy", "of": NAME, "dtype", "shape"}}``)."""
    stored: dict[str, torch.Tensor] = {}
    declared: dict[str, dict] = {}
    for name, t in tensors.items():
        how: dict = {"dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape)}
        if _is_identity(t):
            declared[name] = {"as": "identity", **how}
        elif _is_zeros(t):
            declared[name] = {"as": "zeros", **how}
        else:
            twin = next((k for k, s in stored.items() if s.dtype == t.dtype
                         and s.shape == t.shape and torch.equal(s, t)
                         and torch.equal(torch.signbit(s), torch.signbit(t))), None)
            if twin is None:
                stored[name] = t
            else:
                declared[name] = {"as": "copy", "of": twin, **how}
    return stored, declared


def expand(stored: dict[str, torch.Tensor], declared: object, path: Path,
           expected: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The whole state from the stored tensors and the declarations; a malformed declaration,
    or one whose name or shape the mapping built from its config does not have (``expected``:
    checked before anything is allocated), is refused naming ``path`` (the mapping's JSON)."""
    if not isinstance(declared, dict):
        raise InputError("'declared' must be an object of tensor declarations", path=path)
    state = dict(stored)
    for name, how in declared.items():
        if not isinstance(how, dict) or how.get("dtype") not in _DTYPES \
                or not isinstance(how.get("shape"), list) \
                or not all(isinstance(n, int) and 0 <= n <= 65_536 for n in how["shape"]):
            raise InputError(f"declared tensor '{name}' needs a known dtype and a shape",
                             path=path)
        dtype, shape = _DTYPES[how["dtype"]], tuple(how["shape"])
        if name not in expected or tuple(expected[name].shape) != shape:
            raise InputError(f"declared tensor '{name}' with shape {list(shape)} is not one "
                             "of this mapping's tensors", path=path)
        kind = how.get("as")
        if kind == "identity" and len(shape) == 2 and shape[0] == shape[1]:
            state[name] = torch.eye(shape[0], dtype=dtype)
        elif kind == "zeros":
            state[name] = torch.zeros(shape, dtype=dtype)
        elif kind == "copy" and how.get("of") in stored \
                and tuple(stored[how["of"]].shape) == shape:
            state[name] = stored[how["of"]].to(dtype).clone()
        else:
            raise InputError(f"declared tensor '{name}': {kind!r} with shape {list(shape)} "
                             "is not an identity, zeros or a copy of a stored tensor", path=path)
    return state
