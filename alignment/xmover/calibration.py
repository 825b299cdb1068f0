"""A calibrator: the affine map ``scale × score + offset`` that puts a setting's scores on the
scale of the human judgments it was fitted on (least squares on judged segments), so scores of
exports calibrated to one scale — MLQE-PE's DA z-scores — compare across pairs and a
threshold can be set once. It changes no pair's Pearson (``scale`` > 0); it is what a pooled
Pearson over several pairs rewards. Kept in an export's ``scoring.json``, read as data."""
from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from alignment.errors import InputError

KEYS = ("scale", "offset", "to", "on", "segments")


@dataclass(frozen=True)
class Calibration:
    """``scale × score + offset`` on the scale ``to``, fitted on ``segments`` judged segments
    of ``on``."""

    scale: float
    offset: float
    to: str
    on: str
    segments: int

    @classmethod
    def fit(cls, scores: np.ndarray, human: np.ndarray, to: str, on: str) -> "Calibration":
        """Least squares of ``human`` on ``scores``; refused where the scores do not rise
        with people's (a calibration would reverse or flatten them)."""
        x, y = np.asarray(scores, dtype=np.float64), np.asarray(human, dtype=np.float64)
        if len(x) != len(y) or len(x) < 3 or not (np.isfinite(x).all() and np.isfinite(y).all()):
            raise InputError(f"a calibration needs >= 3 finite scores and as many judgments, "
                             f"got {len(x)} and {len(y)}", parameter="calibrate")
        spread = float(((x - x.mean()) ** 2).sum())
        scale = float(((x - x.mean()) * (y - y.mean())).sum() / spread) if spread > 0 else 0.0
        if not scale > 0:
            raise InputError(f"the scores do not rise with people's on {on} (least-squares "
                             f"slope {scale:.3g}): no calibration", parameter="calibrate")
        return cls(scale, float(y.mean() - scale * x.mean()), to, on, len(x))

    def apply(self, scores: np.ndarray) -> np.ndarray:
        return self.scale * np.asarray(scores, dtype=np.float64) + self.offset

    def tag(self) -> str:
        """The signature's ``cal:`` field: the scale's name and the map's fingerprint."""
        digest = hashlib.sha256(f"{self.scale!r}|{self.offset!r}".encode()).hexdigest()[:8]
        return f"{'-'.join(self.to.split())}#{digest}"

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: object, path: str | Path) -> "Calibration":
        """A calibration read as data (it came from outside): every key checked."""
        if not isinstance(raw, dict) or set(raw) != set(KEYS):
            raise InputError(f"'calibration' must hold exactly {', '.join(KEYS)}", path=path)
        numbers = [raw["scale"], raw["offset"]]
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
               for v in numbers) or not raw["scale"] > 0:
            raise InputError("'calibration': scale must be a finite number > 0 and offset a "
                             "finite number", path=path)
        if not all(isinstance(raw[k], str) and 0 < len(raw[k]) <= 200 for k in ("to", "on")) \
                or isinstance(raw["segments"], bool) or not isinstance(raw["segments"], int) \
                or raw["segments"] < 3:
            raise InputError("'calibration': to and on must be short texts and segments a "
                             "count >= 3", path=path)
        return cls(float(raw["scale"]), float(raw["offset"]), raw["to"], raw["on"],
                   raw["segments"])


def kept_calibration(config, overridden: tuple[str, ...], notes: list[str]) -> Calibration | None:
    """The configuration's calibration where the scorer scores with the configuration's own
    setting (another precision aside); with a weight, the reading, the formula or the LM
    overridden it no longer fits the scores: left out, with a note."""
    found = getattr(config, "calibration", None)
    if found is None:
        return None
    changed = [o for o in overridden if o != "precision"]
    if changed:
        notes.append(f"the export's calibration (to {found.to}) fits its own setting; with "
                     f"{', '.join(changed)} overridden the scores are not calibrated")
        return None
    return found
