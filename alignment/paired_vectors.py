"""Bring your own vectors: paired (src, tgt) arrays from ``.npy``/``.npz``/``.safetensors`` files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import InputError


def _load_array(path: Path, key: str | None = None) -> np.ndarray:
    if not path.is_file():
        raise InputError("vector file not found", path=path)
    if path.suffix == ".npy":
        return np.load(path)
    if path.suffix == ".npz":
        data = dict(np.load(path))
    elif path.suffix == ".safetensors":
        from safetensors.numpy import load_file

        data = load_file(str(path))
    else:
        raise InputError("expected a .npy, .npz or .safetensors file", path=path)
    if key is None:
        if len(data) != 1:
            raise InputError(f"holds {sorted(data)}: name one array", path=path)
        return next(iter(data.values()))
    if key not in data:
        raise InputError(f"no array named '{key}' (found {sorted(data)})", path=path)
    return data[key]


def load_paired_vectors(vectors: str | Path | None = None, src: str | Path | None = None,
                        tgt: str | Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Either one file with arrays ``src`` and ``tgt``, or one file per side; rows pair up."""
    if vectors is not None:
        path = Path(vectors)
        x, y = _load_array(path, "src"), _load_array(path, "tgt")
        where = path
    elif src is not None and tgt is not None:
        x, y = _load_array(Path(src)), _load_array(Path(tgt))
        where = Path(src)
    else:
        raise InputError("give 'vectors' (one file with src and tgt) or both 'src_vectors' and "
                         "'tgt_vectors'", parameter="vectors")
    if x.ndim != 2 or x.shape != y.shape:
        raise InputError(f"src and tgt must be 2-D arrays of equal shape; got {x.shape} and {y.shape}",
                         path=where)
    bad = ~(np.isfinite(x).all(1) & np.isfinite(y).all(1))
    if bad.any():
        raise InputError(f"row {int(np.argmax(bad))} holds NaN or inf ({int(bad.sum())} rows in all)",
                         path=where)
    return x.astype(np.float32, copy=False), y.astype(np.float32, copy=False)
