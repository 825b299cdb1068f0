"""A run folder belongs to one run: a marker names the configuration that made it, a lock
keeps a second fit out while one is writing, and a fit never deletes what it did not write.

Allowed without ``--overwrite``: a new or empty folder, and resuming (``--ckpt_path``) the
run that the marker names with the same configuration. With ``--overwrite``: the previous
run's own files (checkpoints, log, mapping, export, bootstrap rounds, metrics, records) are
removed first, so nothing of it (a ``last.ckpt``, a bootstrap round) is taken for this run's;
files crossalign did not write stay."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from alignment.atomic import write_text
from alignment.errors import InputError

MARKER = ".crossalign-run.json"
LOCK = ".crossalign-run.lock"
OWNED = ("checkpoints", "log", "mapping", "export", "bootstrap", "metrics.json", "run.json",
         "config.yaml", "fit.json", MARKER)


def config_fingerprint(config: dict[str, Any]) -> str:
    """Content hash of a run's whole configuration (16 hex digits)."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _lock(run: Path) -> Path:
    path = run / LOCK
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(path.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and _alive(pid):
                raise InputError(f"another fit (process {pid}) is writing to {run}; wait for "
                                 "it or choose another folder",
                                 parameter="trainer.default_root_dir") from None
            path.unlink(missing_ok=True)  # left by a process that is gone
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(str(os.getpid()))
        return path
    raise InputError(f"cannot lock {run}", parameter="trainer.default_root_dir")


def claim(run: str | Path, config: dict[str, Any], resume: bool, overwrite: bool) -> Path:
    """Take ``run`` for this fit (see the module's rules); returns the lock to release."""
    run = Path(run)
    if run.exists() and not run.is_dir():
        raise InputError(f"{run} exists and is not a folder", parameter="trainer.default_root_dir")
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
            raise InputError(f"{run} holds a run with another configuration; resuming it with "
                             "this one would mix the two (start a new run folder)",
                             parameter="ckpt_path")
        if not (resume and marker is not None) and entries and not overwrite:
            what = ("a previous run" if marker is not None else
                    f"files crossalign did not write ({', '.join(entries[:3])}"
                    f"{', …' if len(entries) > 3 else ''})")
            raise InputError(f"{run} holds {what}; choose a new or empty folder ({where}), "
                             "resume with --ckpt_path RUN/checkpoints/last.ckpt, or pass "
                             "--overwrite (the previous run's files are replaced, others kept)",
                             parameter="trainer.default_root_dir")
        if overwrite and not resume:
            for name in OWNED:
                path = run / name
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                elif path.exists() or path.is_symlink():
                    path.unlink()
        write_text(run / MARKER, json.dumps({"config": fingerprint, "pid": os.getpid(),
                                             "started": time.strftime("%Y-%m-%dT%H:%M:%S")}))
    except BaseException:
        lock.unlink(missing_ok=True)
        raise
    return lock


def _read_marker(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return {}
    return value if isinstance(value, dict) else {}
