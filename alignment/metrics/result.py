"""What every consumer metric returns: one score a pair (higher is better) and its signature."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class MetricResult:
    """``scores``: one a pair, higher is better; ``values``: the metric's own quantities
    (BaryScore's distances W and SD_reg, lower is better); ``signature``: how it was made."""

    scores: np.ndarray
    signature: str
    values: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def final(self) -> np.ndarray:
        """The segment scores, as every crossalign result names them."""
        return self.scores
