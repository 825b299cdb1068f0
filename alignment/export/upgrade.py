"""An export rewritten in the current format (``crossalign-remap-2``): the same mapping, the
same fingerprint and signature, fewer bytes (each tensor once, no file of the identity)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from alignment.atomic import MANIFEST, atomic_dir, files_under, write_text
from alignment.errors import InputError
from alignment.mappings import load_mapping
from .remapped import REMAP_FILE, REMAP_FORMAT, applied_in_words, read_remap_json
from .remap_schema import check_consistent
from .xmover_files import IDENTITY_NOTE, xmover_arrays

MAPPING_DIR = "mapping"


def upgrade_export(directory: str | Path, out: str | Path,
                   rewritten: dict[str, str] | None = None) -> dict:
    """Write ``directory`` (any format this crossalign reads) to ``out`` in the current format
    and return the new ``remap.json``. The mapping is verified against its fingerprint before
    anything is written, and the rewritten one is verified again; every other file is copied
    byte for byte. Fine-tuned exports (their own encoder weights) are refused: nothing in them
    is redundant. ``rewritten``: files (name: text) written in place of their copies (the
    scoring configuration an older export gets)."""
    directory = Path(directory)
    meta = read_remap_json(directory)
    if meta.get("encoder_weights") == ".":
        raise InputError("a fine-tuned export holds its own encoder; there is nothing to "
                         "compact", path=directory)
    mapping = load_mapping(directory / MAPPING_DIR, dim=meta["dim"])
    check_consistent(meta, mapping, directory / REMAP_FILE)
    dropped = set()
    if not xmover_arrays(mapping)[0]:  # a file of the identity repeats mapping/
        dropped = set(meta.get("xmoverscore_files", []))
        meta = {**meta, "xmoverscore_files": [],
                "xmoverscore_note": meta.get("xmoverscore_note") or IDENTITY_NOTE}
        meta["applied"] = applied_in_words(meta["mapped_side"], [])
    meta = {**meta, "format": REMAP_FORMAT}
    keep = sorted(f for f in files_under(directory) if f not in dropped
                  and f not in (REMAP_FILE, MANIFEST) and not f.startswith(MAPPING_DIR + "/"))
    with atomic_dir(out, REMAP_FILE, inputs=(directory,)) as tmp:
        mapping.save(tmp / MAPPING_DIR)
        if load_mapping(tmp / MAPPING_DIR).fingerprint() != meta["mapping_fingerprint"]:
            raise RuntimeError("the rewritten mapping does not reproduce its fingerprint")
        for name in keep:
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(directory / name, tmp / name)
        write_text(tmp / REMAP_FILE, json.dumps(meta, indent=2, ensure_ascii=False))
        for name, text in (rewritten or {}).items():
            write_text(tmp / name, text)
    return meta
