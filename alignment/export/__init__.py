"""What leaves the library: remapped-encoder exports (``remapped``), their provenance,
``remap.json`` schema and signatures. ``alignment.export.load_remapped`` and the other names
of ``remapped`` are importable from here (imported on first use)."""
from __future__ import annotations

from alignment.lazy import lazy_attributes

_PUBLIC = {name: "remapped" for name in (
    "REMAP_FILE", "NORM_FILE", "remap_fields", "export_remapped", "export_encoder",
    "RemappedEncoder", "read_remap_json", "load_remapped")}

__all__ = list(_PUBLIC)

__getattr__ = lazy_attributes(__name__, _PUBLIC, globals())
