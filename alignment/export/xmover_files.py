"""Files in the layout the public XMoverScore code loads: ``.BAM`` (CLP matrix W, applied as
``emb @ W`` to the source side) and ``.GBDD`` (UMD unit vector v), saved with ``numpy.save``
under names without an extension; written from, and read back as, ordinary mappings."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from alignment.atomic import atomic_path
from alignment.names import check_corpus_name, check_language, inside
from alignment.errors import InputError
from alignment.mappings import CLP, UMD, AffineMapping, Composition, Mapping
from alignment.mappings.base import MAX_WEIGHT


IDENTITY_NOTE = "the identity map: the public code scores unmapped, with no file"


def size_label(n_sentences: int) -> str:
    """``2000 -> '2k'``, ``500 -> '500'`` (the public files are named like ``...de-en.2k.12.BAM``)."""
    return f"{n_sentences // 1000}k" if n_sentences >= 1000 else str(n_sentences)


def xmover_filename(corpus: str, src: str, tgt: str, n_sentences: int, layer: int, kind: str) -> str:
    return f"{corpus}.{src}-{tgt}.{size_label(n_sentences)}.{layer}.{kind}"


def save_npy_exact(path: Path, array: np.ndarray) -> None:
    """``numpy.save`` to exactly ``path`` (no ``.npy`` appended), atomically."""
    with atomic_path(path) as tmp:
        with tmp.open("wb") as fh:
            np.save(fh, array)


def xmover_arrays(mapping: Mapping) -> tuple[dict[str, np.ndarray], str]:
    """The arrays expressible in XMoverScore's format, and why others are not.

    BAM: a source-only linear map without bias (none for the identity). GBDD: a single UMD
    stage."""
    stages = list(mapping.stages) if isinstance(mapping, Composition) else [mapping]
    stages = [s for s in stages if s.kind != "identity"]
    if len(stages) == 1 and stages[0].kind == "umd":
        return {"GBDD": stages[0].direction.numpy().astype(np.float32)}, ""
    if isinstance(mapping, AffineMapping) and mapping.is_source_only() and not mapping.src_bias.any():
        if torch.equal(mapping.src_weight, torch.eye(mapping.dim, dtype=mapping.src_weight.dtype)):
            return {}, IDENTITY_NOTE  # a file of the identity would only repeat mapping/
        return {"BAM": mapping.src_weight.numpy().astype(np.float32)}, ""
    return {}, (f"'{mapping.describe()}' is not expressible in XMoverScore's files (they hold "
                "a bias-free source-side matrix or one UMD direction)")


def write_xmover_files(directory: Path, mapping: Mapping, corpus: str, src: str, tgt: str,
                       n_sentences: int, layer: int) -> tuple[list[str], str]:
    check_corpus_name(corpus)  # parts of a file name: never a path
    check_language(src, "src_lang")
    check_language(tgt, "tgt_lang")
    arrays, why_not = xmover_arrays(mapping)
    names = []
    for kind, arr in arrays.items():
        name = xmover_filename(corpus, src, tgt, n_sentences, layer, kind)
        save_npy_exact(inside(directory, name), arr)
        names.append(name)
    return names, why_not


def check_magnitude(values: np.ndarray, path: Path) -> None:
    """Refuse finite weights large enough that applying them overflows (scores would be NaN)."""
    biggest = float(np.abs(values).max()) if values.size else 0.0
    if biggest > MAX_WEIGHT:
        raise InputError(f"weights up to {biggest:.3g} would overflow when applied (a real "
                         f"map's stay far below {MAX_WEIGHT:.0e})", path=path)


def read_xmover_file(path: str | Path, dim: int, public_gbdd: bool = False) -> AffineMapping:
    """A public ``.BAM`` (→ a ``CLP`` with that matrix) or ``.GBDD`` (→ a ``UMD`` removing that
    direction) file as a mapping of dimension ``dim``; never unpickles.

    ``public_gbdd``: reproduce the public code's UMD instead, which indexes the vector with
    ``[0]`` and so subtracts one scalar from every component, e ↦ e − v₀² Σⱼ eⱼ (a linear map,
    I − v₀² 11ᵀ); for reproducing published UMD numbers only."""
    path = Path(path)
    kind = path.suffix.lstrip(".").upper()
    if kind not in ("BAM", "GBDD"):
        raise InputError("a mapping file must end in .BAM (CLP) or .GBDD (UMD)", path=path)
    if not path.is_file():
        raise InputError("mapping file not found", path=path)
    try:
        arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, TypeError) as err:
        raise InputError(f"not a NumPy array file ({err})", path=path) from None
    if not isinstance(arr, np.ndarray):  # an .npz archive under a .BAM name
        arr.close()
        raise InputError("an .npz archive, not one array saved with numpy.save", path=path)
    if arr.dtype.kind not in "fiu":
        raise InputError(f"holds {arr.dtype} values; a mapping file holds real numbers",
                         path=path)
    arr = arr.astype(np.float64)
    if kind == "GBDD" and arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    want = (dim, dim) if kind == "BAM" else (dim,)
    if arr.shape != want:
        raise InputError(f"{kind} has shape {arr.shape} but the encoder needs {want}", path=path)
    if not np.isfinite(arr).all():
        raise InputError(f"{kind} holds NaN or infinite values", path=path)
    check_magnitude(arr, path)
    if kind == "GBDD" and abs(np.linalg.norm(arr) - 1.0) > 1e-3:
        raise InputError(f"a GBDD vector must have unit length (it has {np.linalg.norm(arr):.4g})",
                         path=path)
    import torch

    eye = torch.eye(dim, dtype=torch.float64)
    zero = torch.zeros(dim, dtype=torch.float64)
    if kind == "BAM":
        mapping: AffineMapping = CLP(dim)
        mapping.set_affine(torch.from_numpy(arr), zero, eye, zero)
    elif public_gbdd:
        v0 = float(arr[0] / np.linalg.norm(arr))
        mapping = AffineMapping(dim)
        mapping.set_affine(eye - v0 * v0 * torch.ones(dim, dim, dtype=torch.float64), zero,
                           eye.clone(), zero)
    else:
        v = torch.from_numpy(arr)
        v = v / v.norm()
        proj = eye - torch.outer(v, v)
        mapping = UMD(dim)
        mapping.set_affine(proj, zero, proj.clone(), zero)
    return mapping.eval()


def given_mapping(mapping: str | Path | Mapping | None, dim: int, public_gbdd: bool = False,
                  both_sides: bool = False) -> tuple[Mapping | None, str | None]:
    """(the map, its label) a scorer is given as a public ``.BAM``/``.GBDD`` file or a
    ``Mapping``, applied to the source side only as the public code applies its files
    (``both_sides``: its target side to the hypothesis too, labelled ``@both``). The label is
    the map's own name (clp, umd), as an export of the same map is labelled, so equal maps get
    equal signatures however they were loaded."""
    out, label = None, None
    if isinstance(mapping, Mapping):
        if mapping.dim != dim:
            raise InputError(f"mapping has dimension {mapping.dim} but the encoder has {dim}",
                             parameter="mapping")
        out, label = mapping.eval(), mapping.describe()
    elif mapping:
        if public_gbdd and Path(mapping).suffix.lstrip(".").upper() != "GBDD":
            raise InputError("public_gbdd applies to a .GBDD file only", parameter="public_gbdd")
        out = read_xmover_file(mapping, dim, public_gbdd)
        label = "GBDD-public" if public_gbdd else out.describe()
    if both_sides:
        if out is None:
            raise InputError("mapping_both_sides needs a mapping file or object",
                             parameter="mapping_both_sides")
        if public_gbdd:
            raise InputError("the public GBDD behaviour maps the source side only",
                             parameter="mapping_both_sides")
        label += "@both"
    return out, label
