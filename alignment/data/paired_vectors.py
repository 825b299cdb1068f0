"""Bring your own vectors: paired (src, tgt) arrays from ``.npy``/``.npz``/``.safetensors`` files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from alignment.errors import InputError


def _load_array(path: Path, key: str | None = None) -> np.ndarray:
    if not path.is_file():
        raise InputError("vector file not found", path=path)
    if path.suffix not in (".npy", ".npz", ".safetensors"):
        raise InputError("expected a .npy, .npz or .safetensors file", path=path)
    try:
        data = _read(path)
    except InputError:
        raise
    except Exception as err:  # truncated, garbage, or an object (pickle) array: never unpickled
        raise InputError(f"unreadable vector file ({type(err).__name__}: "
                         f"{str(err).splitlines()[0] if str(err) else 'no detail'})", path=path) from None
    if not isinstance(data, dict):
        return _numeric(data, path)
    if key is None:
        if len(data) != 1:
            raise InputError(f"holds {sorted(data)}: name one array", path=path)
        return _numeric(next(iter(data.values())), path)
    if key not in data:
        raise InputError(f"no array named '{key}' (found {sorted(data)})", path=path)
    return _numeric(data[key], path)


def _read(path: Path) -> np.ndarray | dict[str, np.ndarray]:
    if path.suffix == ".npy":
        return np.load(path, allow_pickle=False)
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    from safetensors.numpy import load_file

    return load_file(str(path))


def _numeric(array: np.ndarray, path: Path) -> np.ndarray:
    if not np.issubdtype(array.dtype, np.floating) and not np.issubdtype(array.dtype, np.integer):
        raise InputError(f"holds a {array.dtype} array, not numbers", path=path)
    return array


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
