"""An export's scoring configuration (``scoring.json``): the setting its card measured — each
term's weight and the identity of what computes it, the LM, the formula, the precision and the
reading of the outputs — and the headline that measurement gave. The scorer loads it from an
export by default, so ``score --encoder NAME`` alone scores as the card says; an option given
overrides it and the signature's ``over:`` field names what was overridden. ``choose`` and
``export --build`` write it; the card, ``crossalign exports`` and the benchmarks read it."""
from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from alignment.atomic import write_text
from alignment.catalogue import check_choice
from alignment.encoding.precision import PRECISIONS
from alignment.errors import InputError
from alignment.export.card import SCORING_FILE, Headline

from alignment.terms import TERMS, Setting, get_term
from .calibration import Calibration

SCORING_FORMAT = "crossalign-scoring-1"
SCORING_KEYS = {"format", "formula", "read", "precision", "weights", "lm", "identities",
                "measured", "calibration"}
# what the scorer takes from a configuration, as its parameters name them
CONFIGURED = ("formula", "read", "precision", "lm", "weights")


@dataclass(frozen=True)
class ScoringConfig:
    """The setting an export scores with (``setting``: every term's weight), how it reads the
    outputs, and (``measured``) the agreement with people that setting was measured at."""

    setting: Setting
    formula: str = "2022"
    read: str = "given"
    precision: str = "fp32"
    lm: str | None = None  # the target-side LM of the ``lm`` term
    measured: Headline | None = None
    # each registered term's identity when the configuration was written
    identities: tuple[tuple[str, str], ...] = ()
    calibration: Calibration | None = None  # the setting's scores mapped to people's scale

    @classmethod
    def of(cls, setting: Setting, measured: Headline | None = None, **given) -> "ScoringConfig":
        """A configuration of ``setting`` with the identity of each registered term it weighs
        as this process computes it."""
        idents = tuple((n, TERMS[n].identity()) for n in setting.active()
                       if not TERMS[n].own_option)
        return cls(setting, measured=measured, identities=idents, **given)

    def scorer_options(self) -> dict:
        """The scorer's parameters this configuration sets (``CONFIGURED``)."""
        weighs_lm = bool(self.lm and self.setting.weight("lm"))
        return {"formula": self.formula, "read": self.read, "precision": self.precision,
                "lm": self.lm if weighs_lm else None,
                # every term's weight, a term left out of the file at its default (0 but
                # XMoverScore's); the LM's only where the file names an LM
                "weights": {n: self.setting.weight(n) for n in TERMS if n != "lm" or weighs_lm}}

    def options(self) -> list[str]:
        """The command-line words that score with this setting on an encoder without it (the
        unmapped row of a card, a reader's shell)."""
        words = [] if self.formula == "2022" else ["--formula", self.formula]
        if self.lm and self.setting.weight("lm"):
            words += ["--lm", self.lm]
        words += shlex.split(self.setting.flags())
        if self.precision != "fp32":
            words += ["--precision", self.precision]
        return words + ([] if self.read == "given" else ["--read", self.read])

    def with_measured(self, measured: Headline | None) -> "ScoringConfig":
        return replace(self, measured=measured)

    def changed_identities(self) -> list[str]:
        """Notes for each registered term whose identity differs from the one it was measured
        with (another version of the term: the numbers may differ from the card's)."""
        return [f"the term {n} was measured as {excerpt(was)}, this crossalign computes it as "
                f"{excerpt(TERMS[n].identity())}: scores may differ from the card's"
                for n, was in self.identities if n in TERMS and TERMS[n].identity() != was]

    def as_dict(self) -> dict:
        out = {"format": SCORING_FORMAT, "formula": self.formula, "read": self.read,
               "precision": self.precision, "lm": self.lm,
               "weights": {n: w for n, w in self.setting.weights if w or TERMS[n].default},
               "identities": dict(self.identities)}
        if self.measured is not None:
            out["measured"] = self.measured.as_dict()
        if self.calibration is not None:
            out["calibration"] = self.calibration.as_dict()
        return out

    def as_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n"

    def write(self, folder: str | Path) -> Path:
        """``folder/scoring.json``, written whole (temporary name, then renamed)."""
        path = Path(folder) / SCORING_FILE
        write_text(path, self.as_json())
        return path

    @classmethod
    def from_dict(cls, raw: object, path: str | Path) -> "ScoringConfig":
        """A configuration read as data: every key, term, weight and name checked, a fault
        refused in one line naming ``path`` (it came from outside)."""
        from .versions import DEFAULT_LAYERS
        from .written import READINGS

        def fail(why: str) -> InputError:
            return InputError(why, path=path)

        if not isinstance(raw, dict) or raw.get("format") != SCORING_FORMAT:
            raise fail(f"'format' must be {SCORING_FORMAT!r}")
        unknown = sorted(set(raw) - SCORING_KEYS)
        if unknown:
            raise fail(f"'{excerpt(unknown[0])}' is not a key of a scoring configuration "
                       f"({', '.join(sorted(SCORING_KEYS))})")
        weights = raw.get("weights")
        if not isinstance(weights, dict) or not weights:
            raise fail("'weights' must be an object of term weights")
        found = {}
        for name, value in weights.items():
            if not isinstance(name, str) or isinstance(value, bool) or \
                    not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise fail(f"weight of {excerpt(repr(name))} must be a finite number >= 0, got "
                           f"{excerpt(repr(value))}")
            try:
                found[get_term(name).name] = float(value)
            except InputError as err:
                raise fail(f"weights: {err.message}") from None
        for key, allowed in (("formula", tuple(DEFAULT_LAYERS)), ("read", READINGS),
                             ("precision", PRECISIONS)):
            try:
                check_choice(str(raw.get(key)), allowed, key, key)
            except InputError as err:
                raise fail(err.message) from None
        lm, idents = raw.get("lm"), raw.get("identities", {})
        if lm is not None and (not isinstance(lm, str) or not _plain_name(lm)):
            raise fail(f"'lm' must be an LM's name (NAME or ORG/NAME), got {excerpt(repr(lm))}")
        if found.get("lm") and lm is None:
            raise fail("weights give the lm term a weight but 'lm' names no LM")
        if not isinstance(idents, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in idents.items()):
            raise fail("'identities' must be an object of term names and identities")
        measured = raw.get("measured")
        try:
            headline = None if measured is None else Headline.from_dict(measured)
        except (KeyError, TypeError, ValueError):
            raise fail("'measured' must hold row, pearson, lo, hi, on and signature") from None
        calibration = raw.get("calibration")
        return cls(Setting.of(**found), raw["formula"], raw["read"], raw["precision"], lm,
                   headline, tuple((get_term(k).name, v) for k, v in idents.items()
                                   if TERMS.taken(k)),
                   None if calibration is None else Calibration.from_dict(calibration, path))

    @classmethod
    def load(cls, folder: str | Path) -> "ScoringConfig | None":
        """``folder``'s configuration, or None where it keeps none; a damaged one is refused."""
        path = Path(folder) / SCORING_FILE
        if not path.exists():
            return None
        from alignment.json_file import read_json

        raw = read_json(path, "a scoring configuration")
        return cls.from_dict(raw, path)


def excerpt(text: str, limit: int = 80) -> str:
    """``text`` as a note may quote it: at most ``limit`` characters, one line."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else f"{line[:limit - 1]}… ({len(line):,} characters)"


def _plain_name(name: str) -> bool:
    from alignment.export.recipe_options import MODEL_NAME

    return bool(MODEL_NAME.fullmatch(name))


def effective(config: ScoringConfig | None, given: dict, defaults: dict) -> tuple[dict, list[str]]:
    """Each ``CONFIGURED`` parameter of a scorer: the one ``given`` (not None), else the
    configuration's, else ``defaults``'; ``weights`` merge term by term. Also the names of
    those given that differ from the configuration's (what the signature's ``over:`` lists:
    ``lm-weight`` for a term with an option of its own, ``term:NAME`` for the others)."""
    own = config.scorer_options() if config is not None else {}
    given_weights = {get_term(n).name: w for n, w in (given.get("weights") or {}).items()}
    out, over = {}, []
    for key in CONFIGURED[:-1]:
        value, base = given.get(key), own.get(key, defaults.get(key))
        out[key] = base if value is None else value
        if config is not None and value is not None and value != base:
            over.append(key)
    base_weights = own.get("weights") or {}
    out["weights"] = {**base_weights, **given_weights}
    if config is not None:
        changed = [n for n in given_weights if given_weights[n] != base_weights.get(n, 0)]
        over += sorted(f"{n}-weight" for n in changed if TERMS[n].own_option)
        over += sorted(f"term:{n}" for n in changed if not TERMS[n].own_option)
    return out, over
