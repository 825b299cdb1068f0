"""Atomic writes: write to a temporary name beside the target, then rename."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path; on success it replaces ``target``, on error it is removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def check_output_dir(target: str | Path, marker: str, overwrite: bool = False,
                     inputs: tuple[str | Path, ...] = (), parameter: str = "out") -> Path:
    """Refuse an output folder that would destroy what the user did not name as output.

    Allowed: a missing or empty folder, or a previous output of the same kind (it holds
    ``marker``), which is then replaced. A non-empty folder without the marker needs
    ``overwrite``. Never allowed: a folder that is, or contains, an input or the current
    working directory. Call it before the expensive work; ``atomic_dir`` calls it again."""
    from .errors import InputError

    target = Path(target)
    resolved = target.resolve()
    guarded = [(Path(i).resolve(), f"the input {i}") for i in inputs]
    guarded.append((Path.cwd().resolve(), "the current directory"))
    for path, what in guarded:
        if path == resolved or resolved in path.parents:
            raise InputError(f"the output folder {target} is or contains {what}; choose another",
                             parameter=parameter)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} exists and is not a folder", parameter=parameter)
    existing = next((p for p in (resolved, *resolved.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise InputError(f"cannot create {target}: {existing} is a file", parameter=parameter)
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {target}: {existing} is not writable",
                         parameter=parameter)
    try:  # one listing: a concurrent writer swapping the folder cannot split the check in two
        names = os.listdir(target) if target.is_dir() else []
    except FileNotFoundError:  # swapped away meanwhile: a previous output, being replaced
        names = []
    if names and marker not in names and not overwrite:
        raise InputError(f"{target} is not empty and is not a previous output (no {marker}); "
                         "choose another folder, or pass --overwrite to replace it",
                         parameter=parameter)
    return target


@contextlib.contextmanager
def atomic_dir(target: str | Path, marker: str, overwrite: bool = False,
               inputs: tuple[str | Path, ...] = ()) -> Iterator[Path]:
    """Yield a temporary folder beside ``target`` that replaces it when the block succeeds
    (after ``check_output_dir``). Writers to the same target are serialised by a lock on the
    parent folder, so concurrent replacements never interleave."""
    import fcntl

    target = check_output_dir(target, marker, overwrite, inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        if not (tmp / marker).is_file():
            raise RuntimeError(f"an output without its {marker} would not be recognised later")
        follow_umask(tmp)
        lock = os.open(target.parent, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            check_output_dir(target, marker, overwrite, inputs)  # it may have changed meanwhile
            old = None
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old",
                                            dir=target.parent))
                os.replace(target, old / "previous")
            os.replace(tmp, target)
            if old is not None:
                shutil.rmtree(old)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            os.close(lock)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def follow_umask(folder: Path) -> None:
    """Give a folder and everything in it the modes the user's umask gives new files (some
    writers, safetensors among them, create files readable by their owner only)."""
    mask = _umask()
    os.chmod(folder, 0o777 & ~mask)
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            os.chmod(Path(root) / d, 0o777 & ~mask)
        for f in files:
            os.chmod(Path(root) / f, 0o666 & ~mask)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(target: str | Path, text: str) -> None:
    """Write a UTF-8 text file atomically."""
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
