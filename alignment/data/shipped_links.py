"""Word links shipped with the package, for the corpora whose tables the docs print (the demo's
Spanish–English Bible). eflomal is compiled on each machine, and its seeded sampler's links
depend on that build and on the CPU's float arithmetic, so the same seed can give other links
elsewhere; where links are shipped, they are used instead of aligning again, and the tables
are the same on every machine. Each entry is keyed by the corpus's tokens, the sampler's seed
and the symmetrisation (not by the build), verified by its sha256 on use, and records the
aligner that made it, which the signatures then name."""
from __future__ import annotations

import hashlib
import json
import lzma
import tempfile
import warnings
from pathlib import Path

from alignment.errors import InputError

from .corpus import fingerprint_lines
from .word_align import Links, aligner_identity, format_pharaoh, links_fingerprint, read_pharaoh

SHIPPED_DIR = Path(__file__).parent / "links"
INDEX = "index.json"
FORMAT = "crossalign-shipped-links-1"


def token_fingerprints(src_tokens: list[list[str]], tgt_tokens: list[list[str]]
                       ) -> tuple[str, str]:
    """Both sides' tokenised sentences as content hashes (what the alignment cache keys too)."""
    return (fingerprint_lines([" ".join(s) for s in src_tokens]),
            fingerprint_lines([" ".join(t) for t in tgt_tokens]))


def shipped_key(fingerprints: tuple[str, str], seed: int | None, symmetrise: str) -> str:
    """The entry's name: what the links are of (``token_fingerprints``) and how they were
    drawn (seed, symmetrisation); the aligner's build is recorded in the entry, not its name."""
    src, tgt = fingerprints
    return hashlib.sha256(json.dumps({"src": src, "tgt": tgt, "seed": seed,
                                      "symmetrise": symmetrise}).encode()).hexdigest()[:24]


def _index(folder: Path) -> dict[str, dict]:
    """The entries of ``folder``'s index; a missing or malformed index has none (with a
    warning for a malformed one: the links are then computed)."""
    path = folder / INDEX
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        entries = raw["entries"] if raw.get("format") == FORMAT else None
        if not isinstance(entries, dict) or not all(
                isinstance(e, dict) and {"file", "sha256", "aligner", "links"} <= set(e)
                for e in entries.values()):
            raise ValueError("not an index of shipped links")
    except (OSError, ValueError, AttributeError, KeyError) as err:
        warnings.warn(f"{path} is unreadable ({err}); word links are computed instead")
        return {}
    return entries


def find_shipped(src_tokens: list[list[str]], tgt_tokens: list[list[str]], seed: int | None,
                 symmetrise: str, folder: Path = SHIPPED_DIR,
                 fingerprints: tuple[str, str] | None = None) -> list[Links] | None:
    """The shipped links of this corpus, seed and symmetrisation, or None (``fingerprints``:
    the tokens' ``token_fingerprints``, when the caller has them). An entry whose file does
    not match its sha256, or whose links do not fit the tokens, is not used (a warning says
    so; the links are then computed)."""
    if seed is None:
        return None  # unseeded links are drawn afresh by definition
    entries = _index(folder)
    if not entries:
        return None
    fingerprints = fingerprints or token_fingerprints(src_tokens, tgt_tokens)
    entry = entries.get(shipped_key(fingerprints, seed, symmetrise))
    if entry is None:
        return None
    path = folder / Path(str(entry["file"])).name
    try:
        packed = path.read_bytes()
        if hashlib.sha256(packed).hexdigest() != entry["sha256"]:
            raise ValueError("its sha256 is not the index's")
        with tempfile.TemporaryDirectory(prefix="crossalign-links-") as tmp:
            text = Path(tmp) / "links.pharaoh"
            text.write_bytes(lzma.decompress(packed))
            links = read_pharaoh(text, [len(s) for s in src_tokens], [len(t) for t in tgt_tokens])
        if links_fingerprint(links) != entry["links"]:
            raise ValueError("its links are not the ones the index records")
    except (OSError, ValueError, lzma.LZMAError, InputError) as err:
        warnings.warn(f"shipped word links {path.name} not used ({err}); aligning instead")
        return None
    return links


def aligner_of(fingerprint: str, computed_by: str, folder: Path = SHIPPED_DIR) -> str:
    """What made the links of ``fingerprint`` (``links_fingerprint``): the recorded aligner of
    the shipped entry they are, else ``computed_by`` (this machine's aligner identity)."""
    for entry in _index(folder).values():
        if entry["links"] == fingerprint:
            return str(entry["aligner"])
    return computed_by


def ship(folder: str | Path, src_tokens: list[list[str]], tgt_tokens: list[list[str]],
         links: list[Links], seed: int, symmetrise: str, aligner: str) -> Path:
    """Add these links to the shipped links in ``folder`` (xz-compressed Pharaoh text and the
    index entry that names and verifies it), each file written to a temporary name first."""
    from alignment.atomic import atomic_path, write_text

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    key = shipped_key(token_fingerprints(src_tokens, tgt_tokens), seed, symmetrise)
    text = "".join(format_pharaoh(l) + "\n" for l in links).encode("utf-8")
    packed = lzma.compress(text, preset=9 | lzma.PRESET_EXTREME)
    name = f"{key}.pharaoh.xz"
    with atomic_path(out / name) as tmp:
        tmp.write_bytes(packed)
    entries = _index(out)
    entries[key] = {"file": name, "sha256": hashlib.sha256(packed).hexdigest(),
                    "aligner": aligner, "links": links_fingerprint(links), "pairs": len(links),
                    "linked_words": sum(len(l) for l in links)}
    write_text(out / INDEX, json.dumps({"format": FORMAT, "entries": entries}, indent=1,
                                       sort_keys=True) + "\n")
    return out / name


_RECORDING: list | None = None  # the links a run used, when a maintainer asked to ship them


def record(src_tokens: list[list[str]], tgt_tokens: list[list[str]], links: list[Links],
           seed: int | None, symmetrise: str) -> None:
    """Note links a run aligned or read, with what made them (for ``ship``), when recording."""
    if _RECORDING is not None and seed is not None:
        aligner = aligner_of(links_fingerprint(links), aligner_identity(seed, symmetrise))
        _RECORDING.append((src_tokens, tgt_tokens, links, seed, symmetrise, aligner))


def start_recording() -> list:
    """From now on, the links word alignment computes or reads are noted (returned list)."""
    global _RECORDING
    _RECORDING = []
    return _RECORDING
