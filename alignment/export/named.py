"""Exports by name. A short name (``wmt17/de-en``, ``center-clp-realnvp``) is a folder under one
of the export roots, searched in order: the folders in ``$CROSSALIGN_EXPORTS`` (``:``-separated),
the exports shipped in the repository (``exports/``), and ``$CROSSALIGN_CACHE/exports``. A name
works wherever an export path does; an existing path always wins over a name."""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from alignment.data.cache import default_cache_dir

REMAP_FILE, CARD_FILE = "remap.json", "README.md"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?\Z")
SHIPPED = Path(__file__).resolve().parents[2] / "exports"  # beside the packages, in the clone
# the card row `crossalign exports` shows: the one marked as what the export scores by default,
# else the setting chosen on dev
HEADLINES = ("(this export)", "(chosen on dev)")


def export_roots() -> list[tuple[str, Path]]:
    """``(where, folder)`` for every root that exists, in search order."""
    extra = [Path(p).expanduser() for p in os.environ.get("CROSSALIGN_EXPORTS", "").split(
        os.pathsep) if p]
    roots = [("CROSSALIGN_EXPORTS", p) for p in extra]
    roots += [("shipped", SHIPPED), ("cache", default_cache_dir() / "exports")]
    return [(where, root) for where, root in roots if root.is_dir()]


def find_export(name: str) -> Path | None:
    """The folder of the export called ``name`` (a short name, not a path) — or of the group
    of exports named by pair (``wmt17``) — or None."""
    if not NAME.match(name) or ".." in name:
        return None
    for _, root in export_roots():
        folder = root / name
        if (folder / REMAP_FILE).is_file() or (folder.is_dir() and any(
                folder.glob(f"*/{REMAP_FILE}"))):
            return folder
    return None


def resolve_export(name_or_path: str) -> str:
    """``name_or_path`` itself when it exists here (a path wins), else the folder of the export
    with that name, else unchanged (an encoder name, or an error further on)."""
    if Path(name_or_path).expanduser().exists():
        return name_or_path
    found = find_export(name_or_path)
    return str(found) if found is not None else name_or_path


@dataclass(frozen=True)
class ExportEntry:
    """One export as ``crossalign exports`` lists it."""

    name: str
    where: str
    folder: str
    pair: str
    encoder: str
    layer: int
    mapping: str
    agreement: str | None  # the card's headline row: "Pearson [CI] on BENCHMARK"
    agreement_row: str | None  # that row's label: the setting it measured
    signature: str

    def as_dict(self) -> dict:
        return asdict(self)


def card_headline(folder: Path, benchmark: str) -> tuple[str, str] | tuple[None, None]:
    """The agreement row the card marks as the export's own (what scoring with it gives),
    else as chosen on dev: ``(".393 [.323, .461] on wmt17", its label)``; ``(None, None)``
    without a card or such a row."""
    card = folder / CARD_FILE
    if not card.is_file():
        return None, None
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in card.read_text(encoding="utf-8").splitlines()]
    for mark in HEADLINES:
        for cells in rows:
            if len(cells) == 2 and mark in cells[0]:
                label = cells[0]
                for known in HEADLINES:  # a row may carry both marks
                    label = label.replace(known, "")
                return f"{cells[1]} on {benchmark}", label.strip()
    return None, None


def list_exports() -> list[ExportEntry]:
    """Every export under every root (a name found twice: the first root's, as ``find_export``
    resolves it), sorted by name. A folder whose ``remap.json`` is not readable is skipped."""
    entries: dict[str, ExportEntry] = {}
    for where, root in export_roots():
        for remap in sorted(root.rglob(REMAP_FILE)):
            folder = remap.parent
            name = folder.relative_to(root).as_posix()
            if name in entries or not NAME.match(name):
                continue
            try:
                meta = json.loads(remap.read_text(encoding="utf-8"))
                entry = ExportEntry(name, where, str(folder),
                                    f"{meta['src_lang']}-{meta['tgt_lang']}", meta["encoder"],
                                    int(meta["layer"]), meta["mapping_type"],
                                    *card_headline(folder, name.split("/")[0]),
                                    meta["signature"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
            entries[name] = entry
    return [entries[k] for k in sorted(entries)]
