"""One training seed's results in ``crossalign compare``, kept on disk as soon as the seed
finishes, so a long multi-seed comparison that stops (a closed laptop, a job limit) resumes at
the next seed instead of starting over. A kept seed is reused only when everything that made it
(settings, methods, package version) is the same."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alignment.atomic import atomic_path
from alignment.version import __version__


@dataclass(frozen=True)
class SeedRun:
    """One training seed's rows (``method/selection`` → metrics), per-verse hits and per
    CBLI gold occurrence hits of the semantic-selected epoch, notes and criterion-tracking
    correlations."""

    rows: dict[str, dict[str, float]]
    hits: dict[str, np.ndarray]
    notes: dict[str, str]
    tracking: dict[str, float]
    word_hits: dict[str, np.ndarray] = field(default_factory=dict)


def seed_signature(settings: dict, seed: int) -> str:
    """What made one seed's run: the settings that change its numbers, the seed and the
    package version, as a short hash."""
    made_of = {"settings": settings, "seed": seed, "version": __version__}
    return hashlib.sha256(json.dumps(made_of, sort_keys=True).encode()).hexdigest()[:16]


def seed_paths(folder: Path, seed: int) -> tuple[Path, Path]:
    return folder / f"seed{seed}.json", folder / f"seed{seed}.npz"


def save_seed_run(folder: Path, seed: int, signature: str, run: SeedRun) -> None:
    """Write the run (JSON for the numbers, npz for the hits), each under a temporary name."""
    folder.mkdir(parents=True, exist_ok=True)
    meta_path, hits_path = seed_paths(folder, seed)
    with atomic_path(hits_path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(f, **{k: v.astype(np.float32) for k, v in run.hits.items()},
                            **{f"cbli/{k}": v.astype(np.float32) for k, v in run.word_hits.items()})
    record = {"signature": signature, "rows": run.rows, "notes": run.notes,
              "tracking": run.tracking, "hits": sorted(run.hits),
              "word_hits": sorted(run.word_hits)}
    with atomic_path(meta_path) as tmp:
        Path(tmp).write_text(json.dumps(record, indent=1, allow_nan=True))


def load_seed_run(folder: Path, seed: int, signature: str) -> SeedRun | None:
    """The kept run of this seed if one exists with this signature and is whole; else None."""
    meta_path, hits_path = seed_paths(folder, seed)
    if not (meta_path.is_file() and hits_path.is_file()):
        return None
    try:
        record = json.loads(meta_path.read_text())
        if record.get("signature") != signature:
            return None
        with np.load(hits_path, allow_pickle=False) as arrays:
            hits = {label: arrays[label].astype(np.float64) for label in record["hits"]}
            word_hits = {label: arrays[f"cbli/{label}"].astype(np.float64)
                         for label in record["word_hits"]}
    except (ValueError, KeyError, OSError):
        return None  # unreadable, partial or from before CBLI hits were kept: fit it again
    return SeedRun(record["rows"], hits, record["notes"], record["tracking"], word_hits)
