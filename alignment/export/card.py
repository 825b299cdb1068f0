"""An export's card (its ``README.md``), written from what the export carries: the headline —
the agreement with people of the setting the export scores with, and where it was measured —
is kept in the export's scoring configuration (``scoring.json``, ``measured``), and
``crossalign exports`` reads it from there (``read_headline``), never from the card's text."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from alignment.atomic import write_text

CARD_FILE = "README.md"
SCORING_FILE = "scoring.json"  # the scoring configuration (alignment.xmover.configuration)
HEADLINE_MARK = "**Agreement with people:**"
# the headline line of a card written before exports kept a scoring configuration
_OLD_HEADLINE = re.compile(r"^\*\*Agreement with people:\*\* (\S+) \[(\S+), (\S+)\] on (.+?) — "
                           r"(.+)$")


def fmt_r(value: float) -> str:
    """A Pearson as cards print it: three decimals, a true minus sign, no leading zero."""
    text = f"{value:.3f}".replace("0.", ".", 1) if abs(value) < 1 else f"{value:.3f}"
    return text.replace("-", "−")


def fmt_delta(value: float) -> str:
    """A difference as cards print it: signed, three decimals, a true minus sign."""
    return f"{value:+.3f}".replace("0.", ".", 1).replace("-", "−")


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


@dataclass(frozen=True)
class Headline:
    """The row an export scores with by default, its Pearson [95% CI], and on what data."""

    row: str
    pearson: float
    lo: float
    hi: float
    on: str  # "wmt17 test", "mlqe dev"
    signature: str = ""  # the signature of the row measured

    @classmethod
    def from_dict(cls, raw: dict) -> "Headline":
        """From ``as_dict``'s fields, each checked for its kind (a ValueError, KeyError or
        TypeError otherwise)."""
        numbers = [float(raw[k]) for k in ("pearson", "lo", "hi")]
        if isinstance(raw["pearson"], bool) or not all(-1 <= v <= 1 for v in numbers):
            raise ValueError("a Pearson is in [-1, 1]")
        texts = [raw[k] for k in ("row", "on", "signature")]
        if not all(isinstance(t, str) for t in texts):
            raise TypeError("row, on and signature are strings")
        return cls(texts[0], *numbers, texts[1], texts[2])

    def as_dict(self) -> dict:
        return asdict(self)

    def value(self) -> str:
        return f"{fmt_r(self.pearson)} [{fmt_r(self.lo)}, {fmt_r(self.hi)}] on {self.on}"

    def line(self) -> str:
        return f"{HEADLINE_MARK} {self.value()} — {self.row}"


def card_text(title: str, headline: Headline | None, sections: list[tuple[str, list[str]]],
              intro: list[str] = ()) -> str:
    """A card: ``# title``, the headline line, ``intro``, then each ``## heading`` section."""
    lines = [f"# {title}", ""]
    if headline is not None:
        lines += [headline.line(), ""]
    lines += [*intro, *([""] if intro else [])]
    for heading, body in sections:
        lines += [f"## {heading}", "", *body, ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table's lines."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *["| " + " | ".join(r) + " |" for r in rows]]


def write_card(folder: Path, text: str) -> Path:
    """``folder``'s card, written whole (temporary name, then renamed)."""
    path = Path(folder) / CARD_FILE
    write_text(path, text)
    return path


def read_headline(folder: Path) -> Headline | None:
    """The headline ``folder``'s scoring configuration keeps, or None (none kept, or not
    readable: listing exports never fails on one)."""
    path = Path(folder) / SCORING_FILE
    try:
        measured = json.loads(path.read_text(encoding="utf-8")).get("measured")
        return None if measured is None else Headline.from_dict(measured)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def old_headline(folder: Path, signature: str = "") -> Headline | None:
    """The headline line of a card written before exports kept a scoring configuration
    (``crossalign export --upgrade`` moves it into one), or None."""
    card = Path(folder) / CARD_FILE
    if not card.is_file():
        return None
    for line in card.read_text(encoding="utf-8").splitlines():
        found = _OLD_HEADLINE.match(line.strip())
        if found:
            p, lo, hi, on, row = found.groups()
            try:
                return Headline(row, _number(p), _number(lo.rstrip(",")), _number(hi), on,
                                signature)
            except ValueError:
                return None
    return None


def replace_section(card: str, heading: str, body: list[str]) -> str:
    """``card`` with its ``## heading`` section replaced by ``body`` (or the section added)."""
    marker = f"## {heading}"
    head, found, rest = card.partition(marker)
    tail = ""
    if found:
        nxt = rest.find("\n## ")
        tail = rest[nxt + 1:] if nxt >= 0 else ""
    out = head.rstrip("\n") + f"\n\n{marker}\n\n" + "\n".join(body).rstrip("\n") + "\n"
    return out + ("\n" + tail if tail else "")
