"""What the package knows about one method: its mapping, how it is fitted and on which data."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

from .base import Mapping

CLOSED_FORM, TRAINED = "closed_form", "trained"


class DataKind(str, Enum):
    """The data a fit reads: translation pairs of word vectors, two unpaired monolingual pools,
    or parallel sentences (for methods that fine-tune the encoder itself)."""

    PAIRED = "paired"
    UNPAIRED = "unpaired"
    PARALLEL_TEXT = "parallel_text"

    def describe(self) -> str:
        return {"paired": "parallel text, word-aligned (crossalign train --src X --tgt Y)",
                "unpaired": "two monolingual files, no pairs (crossalign train --src mono.X "
                            "--tgt mono.Y)",
                "parallel_text": "parallel sentences, for fine-tuning the encoder"}[self.value]


@dataclass(frozen=True)
class Method:
    """One registered method.

    ``fitter`` names the family of Lightning module that fits it (``"flow"``; the training
    layer's fitter classes each say their ``family``, and its plan looks the class up there:
    this library never imports the Lightning layer); ``data`` is what it trains on; ``pairless``: a closed-form stage that needs only
    each language's own statistics, so it also fits on unpaired pools; ``loss`` the training
    objective; ``defaults`` the settings that differ from the fitter's own defaults."""

    name: str
    mapping: type[Mapping]
    kind: str = CLOSED_FORM
    fitter: str = "closed_form"
    loss: Callable[..., dict] | None = None
    defaults: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    summary: str = ""
    data: DataKind = DataKind.PAIRED
    pairless: bool = False

    @property
    def trained(self) -> bool:
        return self.kind == TRAINED
