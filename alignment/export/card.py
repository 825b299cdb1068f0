"""An export's card (its ``README.md``): one writer and one reader. The writer puts the
headline — the agreement with people of the setting the export scores with, and where it was
measured — on a line of its own; ``crossalign exports`` reads that line back (``read_headline``)
and nothing else of the card."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from alignment.atomic import write_text

CARD_FILE = "README.md"
HEADLINE_MARK = "**Agreement with people:**"
_HEADLINE = re.compile(r"^\*\*Agreement with people:\*\* (\S+) \[(\S+), (\S+)\] on (.+?) — (.+)$")


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
    """The headline of ``folder``'s card, or None (no card, or a card without one)."""
    card = Path(folder) / CARD_FILE
    if not card.is_file():
        return None
    for line in card.read_text(encoding="utf-8").splitlines():
        found = _HEADLINE.match(line.strip())
        if found:
            p, lo, hi, on, row = found.groups()
            try:
                return Headline(row, _number(p), _number(lo.rstrip(",")), _number(hi), on)
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
