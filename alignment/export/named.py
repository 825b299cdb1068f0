"""Exports by name. A short name (``wmt17/de-en``, ``bible/es-en``) is a folder under one of the
export roots, searched in order: the folders in ``$CROSSALIGN_EXPORTS`` (``:``-separated), the
exports shipped with crossalign (``exports/`` in a clone, inside the installed package else), and ``$CROSSALIGN_CACHE/exports`` (where
``export --build NAME --variant V`` puts what a recipe builds on demand). A name works wherever
an export path does; an existing path always wins over a name; a mistyped one is refused with
the close matches."""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from alignment.catalogue import unknown_name
from alignment.errors import InputError
from alignment.data.cache import default_cache_dir
from alignment.shipped import shipped_folder

from .card import read_headline

REMAP_FILE = "remap.json"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?\Z")
SHIPPED = shipped_folder("exports")  # the clone's exports/, or the installed package's copy
# exports that left the repository, and what took their place
SUCCESSORS = {"center-clp-realnvp": "bible/es-en (the same preset, made by its recipe)"}


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
    if found is not None:
        return str(found)
    check_unknown_export(name_or_path)
    return name_or_path


def check_unknown_export(name: str) -> None:
    """Refuse a name that can only mean an export but names none — under an export group
    (``wmt17/de-xx``), close to an export's name, or one built on demand and not built yet —
    with the catalogue's wording and the close matches; any other name may be an encoder."""
    names = export_names()
    groups = {n.split("/")[0] for n in names if "/" in n}
    variant = name.rpartition("-")[0] if "/" in name else ""
    build = f"{variant} --variant {name.rpartition('-')[2]}" if variant in names else None
    if build is None and name not in SUCCESSORS and name.split("/")[0] not in groups and \
            not difflib.get_close_matches(name, names, n=1, cutoff=0.85):
        return
    advice = "crossalign exports lists them" + (
        f"; {name} is built on demand: crossalign export --build {build} --from CLONE"
        if build else "") + (f"; {name} left the repository: its successor is "
                             f"{SUCCESSORS[name]}" if name in SUCCESSORS else "")
    raise unknown_name("export", name, names, parameter="encoder", advice=advice)


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
    agreement: str | None  # the card's headline: "Pearson [CI] on BENCHMARK SPLIT"
    agreement_row: str | None  # that row's label: the setting it measured
    signature: str
    pearson: float | None = None  # the headline's Pearson

    def as_dict(self) -> dict:
        return asdict(self)


def export_names() -> list[str]:
    """The short names of every export under every root, found by their ``remap.json`` alone
    (nothing read: cheap enough for every name that is not an export)."""
    return sorted({remap.parent.relative_to(root).as_posix() for _, root in export_roots()
                   for remap in root.rglob(REMAP_FILE)} - {""})


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
                headline = read_headline(folder)
                entry = ExportEntry(name, where, str(folder),
                                    f"{meta['src_lang']}-{meta['tgt_lang']}", meta["encoder"],
                                    int(meta["layer"]), meta["mapping_type"],
                                    headline.value() if headline else None,
                                    headline.row if headline else None, meta["signature"],
                                    headline.pearson if headline else None)
            except (OSError, ValueError, KeyError, TypeError):
                continue
            entries[name] = entry
    return [entries[k] for k in sorted(entries)]


def export_for_pair(pair: str, entries: list[ExportEntry] | None = None) -> ExportEntry:
    """The export ``score`` uses for ``pair`` when no encoder is named: of those for the pair,
    the one whose card measured the highest Pearson (a measured one before an unmeasured one;
    cards on different test sets, so a rule of thumb, not a comparison); refused, naming the
    pairs covered, where none is (``entries``: ``list_exports()``'s, where already read)."""
    entries = list_exports() if entries is None else entries
    found = [e for e in entries if e.pair == pair]
    if not found:
        covered = sorted({e.pair for e in entries})
        raise InputError(f"no export scores {pair} (the exports cover "
                         f"{', '.join(covered) or 'no pair'}; `crossalign exports` lists them): "
                         "give --encoder — an HF encoder scores any pair unmapped",
                         parameter="encoder")
    return max(found, key=lambda e: (e.pearson is not None, e.pearson or 0.0))
