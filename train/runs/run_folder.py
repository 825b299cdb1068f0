"""A run folder belongs to one run: a marker names the configuration that made it, a lock
keeps a second fit out while one is writing, and a fit never deletes what it did not write.

Allowed without ``--overwrite``: a new or empty folder, and resuming (``--ckpt_path``) the
run that the marker names with the same configuration. With ``--overwrite``: the files the
previous run wrote — listed in its marker when it ended — are removed first, so nothing of it
(a ``last.ckpt``, a self-training round) is taken for this run's. A file crossalign did not write
is never removed: at a name a run writes (``checkpoints/``, ``metrics.json``, …) it makes
``--overwrite`` refuse; elsewhere it stays."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alignment.atomic import files_under, write_text
from alignment.errors import InputError

MARKER = ".crossalign-run.json"
LOCK = ".crossalign-run.lock"
OWNED = ("checkpoints", "log", "mapping", "export", "self-training", "metrics.json", "run.json",
         "config.yaml", "fit.json", MARKER,
         "bootstrap")  # self-training's folder as 0.3.0 and earlier named it


def config_fingerprint(config: dict[str, Any]) -> str:
    """Content hash of a run's whole configuration and of the files it names (16 hex digits):
    a file edited in place makes another configuration, so a resume cannot mix the two."""
    text = json.dumps({"config": config, "files": file_contents(config)}, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def file_contents(value: Any, found: dict[str, str] | None = None) -> dict[str, str]:
    """{path: content hash} of every existing file a configuration names (folders skipped)."""
    found = {} if found is None else found
    if isinstance(value, dict):
        for v in value.values():
            file_contents(v, found)
    elif isinstance(value, (list, tuple)):
        for v in value:
            file_contents(v, found)
    elif isinstance(value, str) and value not in found and len(value) < 4096 and "\n" not in value:
        path = Path(value)
        try:
            if path.is_file():
                digest = hashlib.sha256()
                with path.open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                found[value] = digest.hexdigest()[:16]
        except OSError:
            pass
    return found


def _started(pid: int) -> str | None:
    """When process ``pid`` started (Linux clock ticks since boot), to tell a reused PID from
    the process that wrote a lock; None where the system does not say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, after the command name


def _alive(pid: int, started: str | None = None) -> bool:
    """Whether the process that wrote a lock still runs: ``pid`` exists and, when the lock
    recorded its start time, started then (not a later process given the same PID)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    now = _started(pid)
    return started is None or now is None or now == started


def _lock(run: Path) -> Path:
    path = run / LOCK
    me = f"{os.getpid()} {_started(os.getpid()) or ''}".strip()
    for _ in range(3):
        tmp = run / f"{LOCK}.{os.getpid()}"
        tmp.write_text(me)
        try:
            os.link(tmp, path)  # created with its content at once: never an empty lock
        except FileExistsError:
            try:
                owner = path.read_text().split()
                age = time.time() - path.stat().st_mtime
            except (OSError, ValueError):
                owner, age = [], 1e9
            pid = int(owner[0]) if owner and owner[0].isdigit() else 0
            if (pid and _alive(pid, owner[1] if len(owner) > 1 else None)) or \
                    (not owner and age < 10):  # an older crossalign between create and write
                raise InputError(f"another fit (process {pid or '?'}) is writing to {run}; wait "
                                 "for it or choose another folder",
                                 parameter="trainer.default_root_dir") from None
            path.unlink(missing_ok=True)  # left by a process that is gone
            continue
        finally:
            tmp.unlink(missing_ok=True)
        return path
    raise InputError(f"cannot lock {run}", parameter="trainer.default_root_dir")


@dataclass
class Claim:
    """A run folder taken by this fit: its lock, and what lay under crossalign's names before
    the fit (``before``) and what earlier fits of this run wrote (``written``)."""

    run: Path
    lock: Path
    before: set[str]
    written: set[str]
    names: set[str] = field(default_factory=set)  # the folder's entries before the fit

    def release(self) -> None:
        """Record in the marker every file this run wrote (its manifest), remove the empty
        folders it made (a fit that failed early), then unlock."""
        try:
            for name in OWNED:
                top = self.run / name
                if name not in self.names and top.is_dir() and not top.is_symlink() and \
                        not any(files for _, _, files in os.walk(top)):
                    shutil.rmtree(top)
            marker = _read_marker(self.run / MARKER)
            if marker is not None:
                now = owned_files(self.run)
                marker["written"] = sorted(self.written | (now - self.before))
                write_text(self.run / MARKER, json.dumps(marker, indent=1))
        except OSError:
            pass  # a full disk at the end: the marker keeps its earlier list
        finally:
            self.lock.unlink(missing_ok=True)


def owned_files(run: Path) -> set[str]:
    """Paths (relative, '/'-separated) of the files and links under the names a run writes."""
    found: set[str] = set()
    for name in OWNED:
        path = run / name
        if name == MARKER or not (path.exists() or path.is_symlink()):
            continue
        if path.is_dir() and not path.is_symlink():
            found.update(f"{name}/{rel}" for rel in files_under(path))
        else:
            found.add(name)
    return found


def claim(run: str | Path, config: dict[str, Any], resume: bool, overwrite: bool) -> Claim:
    """Take ``run`` for this fit (see the module's rules); ``release`` the claim when done."""
    run = Path(run)
    if run.exists() and not run.is_dir():
        raise InputError(f"{run} exists and is not a folder", parameter="trainer.default_root_dir")
    check_not_over(run, (), "trainer.default_root_dir")
    try:
        run.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the run folder: {err.strerror}",
                         parameter="trainer.default_root_dir") from None
    if not os.access(run, os.W_OK):
        raise InputError(f"{run} is not writable", parameter="trainer.default_root_dir")
    lock = _lock(run)
    try:
        fingerprint = config_fingerprint(config)
        marker = _read_marker(run / MARKER)
        entries = sorted(p.name for p in run.iterdir() if p.name != LOCK)
        where = "--trainer.default_root_dir / --out"
        if resume and marker is not None and marker.get("config") != fingerprint:
            raise InputError(f"{run} holds a run with another configuration (settings, or the "
                             "content of an input file); resuming it with this one would mix "
                             "the two (start a new run folder)",
                             parameter="ckpt_path")
        if not (resume and marker is not None) and entries and not overwrite:
            what = ("a previous run" if marker is not None else
                    f"files crossalign did not write ({', '.join(entries[:3])}"
                    f"{', …' if len(entries) > 3 else ''})")
            raise InputError(f"{run} holds {what}; choose a new or empty folder ({where}), "
                             "resume with --ckpt_path RUN/checkpoints/last.ckpt, or pass "
                             "--overwrite (the previous run's files are replaced, others kept)",
                             parameter="trainer.default_root_dir")
        written = set((marker or {}).get("written") or [])
        present = owned_files(run)
        if overwrite and not resume:
            foreign = sorted(present - written)
            if foreign:  # at a name this run writes, but not written by crossalign: keep it
                raise InputError(
                    f"{run} holds files crossalign did not write where a run writes "
                    f"({', '.join(foreign[:3])}{', …' if len(foreign) > 3 else ''}); "
                    "--overwrite replaces only a previous run's own files: move these, or "
                    f"choose another folder ({where})", parameter="trainer.default_root_dir")
            _remove(run, written)
            written, present = set(), owned_files(run)
        write_text(run / MARKER, json.dumps({"config": fingerprint, "pid": os.getpid(),
                                             "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
                                             "written": sorted(written)}, indent=1))
    except BaseException:
        lock.unlink(missing_ok=True)
        raise
    return Claim(run, lock, present - written, written, {p.name for p in run.iterdir()})


def note_written(run: Path, folder: str) -> None:
    """Record in a finished run's marker every file now under its ``folder`` (one of the names
    a run writes), written after the fit (the export's sentence map and scoring.json), so that
    ``--overwrite`` replaces them as the run's own."""
    marker = _read_marker(run / MARKER)
    if marker is None:
        return
    now = {f for f in owned_files(run) if f.startswith(f"{folder}/")}
    marker["written"] = sorted(set(marker.get("written") or []) | now)
    write_text(run / MARKER, json.dumps(marker, indent=1))


def _remove(run: Path, listed: set[str]) -> None:
    """Delete the listed files (never following a link out of ``run``), then the folders
    under crossalign's names that this left empty."""
    root = run.resolve()
    for rel in sorted(listed):
        path = run / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            continue  # a crafted marker: never outside the run
        parent = path.parent.resolve()
        if parent != root and root not in parent.parents:
            continue
        if path.is_symlink() or path.is_file():
            path.unlink()
    for name in OWNED:
        top = run / name
        if top.is_dir() and not top.is_symlink():
            for folder in sorted((Path(r) for r, _, _ in os.walk(top)), reverse=True):
                if not any(folder.iterdir()):
                    folder.rmdir()


def check_not_over(out: Path, inputs: tuple[str | Path, ...], parameter: str) -> None:
    """Refuse an output folder that is or contains the working directory or an input, or that
    lies inside an input folder."""
    resolved = out.resolve()
    cwd = Path.cwd().resolve()
    if resolved == cwd or resolved in cwd.parents:
        raise InputError(f"the output folder {out} is or contains the current directory; "
                         "choose another", parameter=parameter)
    for item in inputs:
        path = Path(item).resolve()
        if path == resolved or resolved in path.parents or (path.is_dir() and path in resolved.parents):
            raise InputError(f"the output folder {out} is, contains or lies inside the input "
                             f"{item}; choose another", parameter=parameter)


def _read_marker(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return {}
    return value if isinstance(value, dict) else {}
