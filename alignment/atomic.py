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


MANIFEST = ".crossalign-output.json"  # in every output folder: the files crossalign wrote


def check_output_dir(target: str | Path, marker: str, overwrite: bool = False,
                     inputs: tuple[str | Path, ...] = (), parameter: str = "out") -> Path:
    """Refuse an output folder that would destroy what the user did not name as output.

    Allowed: a missing or empty folder, or a previous output of the same kind that holds
    nothing but the files its manifest lists (it is then replaced). A folder with any other
    file is refused — crossalign never deletes a file it did not write. ``overwrite``: also
    replace a previous output made before outputs listed their files (it holds ``marker``
    but no manifest). Never allowed: a folder that is or contains an input or the current
    working directory, or lies inside an input folder. Call it before the expensive work;
    ``atomic_dir`` calls it again."""
    from .errors import InputError

    target = Path(target)
    resolved = target.resolve()
    guarded = [(Path(i).resolve(), f"the input {i}") for i in inputs]
    guarded.append((Path.cwd().resolve(), "the current directory"))
    for path, what in guarded:
        if path == resolved or resolved in path.parents:
            raise InputError(f"the output folder {target} is or contains {what}; choose another",
                             parameter=parameter)
    for item in inputs:
        if Path(item).is_dir() and Path(item).resolve() in resolved.parents:
            raise InputError(f"the output folder {target} lies inside the input {item}; choose "
                             "another", parameter=parameter)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} exists and is not a folder", parameter=parameter)
    existing = next((p for p in (resolved, *resolved.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise InputError(f"cannot create {target}: {existing} is a file", parameter=parameter)
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {target}: {existing} is not writable",
                         parameter=parameter)
    try:  # one listing: a concurrent writer swapping the folder cannot split the check in two
        present = files_under(target) if target.is_dir() else set()
    except FileNotFoundError:  # swapped away meanwhile: a previous output, being replaced
        present = set()
    if not present:
        return target
    listed = _manifest(target / MANIFEST, marker)
    legacy = listed is None and marker in present and _signed(target / marker)
    if legacy and overwrite:
        return target  # an older crossalign's output, replaced as asked
    foreign = sorted(present - (listed or set()) - {MANIFEST})
    if listed is None:
        why = ("was written by an older crossalign, which did not list its files (pass "
               "--overwrite to replace it whole)" if legacy
               else f"is not empty and is not a previous output (no crossalign {marker})")
        raise InputError(f"{target} {why}; crossalign never deletes files it did not write: "
                         "choose a new or empty folder", parameter=parameter)
    if foreign:
        raise InputError(f"{target} is a previous output but also holds files crossalign did not "
                         f"write ({', '.join(foreign[:3])}{', …' if len(foreign) > 3 else ''}); "
                         "move them, or choose another folder", parameter=parameter)
    return target


def files_under(folder: Path) -> set[str]:
    """Every file and link under ``folder``, as '/'-separated relative paths."""
    found: set[str] = set()
    for root, dirs, files in os.walk(folder):
        base = Path(root).relative_to(folder)
        found.update((base / f).as_posix() for f in files)
        found.update((base / d).as_posix() for d in dirs if (Path(root) / d).is_symlink())
    return found


def _signed(path: Path) -> bool:
    """Whether ``path`` is a crossalign record: a JSON object with a crossalign signature."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and str(data.get("signature", "")).startswith("crossalign|")


def _manifest(path: Path, marker: str) -> set[str] | None:
    """The files a manifest lists, or None if there is none of this kind of output."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("marker") != marker or \
            not isinstance(data.get("files"), list):
        return None
    return {f for f in data["files"] if isinstance(f, str)}


@contextlib.contextmanager
def atomic_dir(target: str | Path, marker: str, overwrite: bool = False,
               inputs: tuple[str | Path, ...] = ()) -> Iterator[Path]:
    """Yield a temporary folder beside ``target`` that replaces it when the block succeeds
    (after ``check_output_dir``), with a manifest of its files. Writers to the same target are
    serialised by a lock on the parent folder, so concurrent replacements never interleave;
    signals wait until the swap is done, so ``target`` is never missing or half-swapped."""
    import fcntl
    import json

    target = check_output_dir(target, marker, overwrite, inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        if not (tmp / marker).is_file():
            raise RuntimeError(f"an output without its {marker} would not be recognised later")
        (tmp / MANIFEST).write_text(json.dumps({"marker": marker,
                                                "files": sorted(files_under(tmp))}, indent=1))
        follow_umask(tmp)
        lock = os.open(target.parent, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            check_output_dir(target, marker, overwrite, inputs)  # it may have changed meanwhile
            with signals_deferred():
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


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block is done (a swap of two renames and a removal
    must not stop halfway); a signal that came meanwhile is raised right after it. Main
    thread only (elsewhere signals reach Python's handlers in the main thread anyway)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, lambda signum, frame: pending.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        for s in pending:
            signal.raise_signal(s)


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
