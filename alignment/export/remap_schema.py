"""The ``remap.json`` schema: every field's type, checked when an export is read, so an edited
or damaged file fails with one line naming the field instead of a traceback later."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from alignment.errors import InputError

_STR, _INT, _BOOL, _DICT, _LIST, _NONE = str, int, bool, dict, list, type(None)

# field -> (accepted types, required)
FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "format": ((_STR,), True),
    "encoder": ((_STR,), True),
    "revision": ((_STR, _NONE), False),
    "base_revision": ((_STR, _NONE), False),
    "layer": ((_INT,), True),
    "pooling": ((_STR,), True),
    "max_length": ((_INT,), False),
    "tokenizer": ((_DICT,), True),
    "mapping_type": ((_STR,), True),
    "mapping_fingerprint": ((_STR,), True),
    "mapped_side": ((_STR,), True),
    "dim": ((_INT,), True),
    "src_lang": ((_STR,), True),
    "tgt_lang": ((_STR,), True),
    "data_fingerprint": ((_STR, _NONE), False),
    "n_pairs": ((_INT, _NONE), False),
    "aligner": ((_STR, _NONE), False),
    "n_sentences": ((_INT, _NONE), False),
    "package_version": ((_STR,), False),
    "encoder_weights": ((_STR, _NONE), False),
    "xmoverscore_files": ((_LIST,), False),
    "xmoverscore_note": ((_STR, _NONE), False),
    "applied": ((_STR,), False),
    "text": ((_DICT, _NONE), False),
    "fine_tuned": ((_STR, _NONE), False),
    "sentence_map": ((_STR, _NONE), False),  # the sentence map in sentence_map/, described
    "signature": ((_STR,), True),
}
MAPPED_SIDES = ("src", "both")
FORMATS = ("crossalign-remap-1", "crossalign-remap-2")  # every version still loads


def _type_names(types: tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", bool: "true/false", dict: "an object",
             list: "a list", type(None): "null"}
    return " or ".join(names[t] for t in types)


def check_remap(meta: Any, path: Path) -> dict:
    """``meta`` if it has every required field with the right type; else one line naming the
    first field that is wrong."""
    if not isinstance(meta, dict):
        raise InputError(f"must hold a JSON object, not {type(meta).__name__}", path=path)
    for name, (types, required) in FIELDS.items():
        if name not in meta:
            if required:
                raise InputError(f"field '{name}' is missing", path=path)
            continue
        value = meta[name]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            raise InputError(f"field '{name}' must be {_type_names(types)}, not {value!r}",
                             path=path)
    if meta["format"] not in FORMATS:
        raise InputError(f"field 'format' is {meta['format']!r}; this crossalign reads "
                         f"{' and '.join(FORMATS)} (a newer crossalign may read it)", path=path)
    tok = meta["tokenizer"]
    if not isinstance(tok.get("tokenizer"), str) or not isinstance(tok.get("lowercase", False), bool):
        raise InputError("field 'tokenizer' must be {\"tokenizer\": NAME, \"lowercase\": "
                         "true/false}", path=path)
    if meta["mapped_side"] not in MAPPED_SIDES:
        raise InputError(f"field 'mapped_side' must be {' or '.join(map(repr, MAPPED_SIDES))}, not "
                         f"{meta['mapped_side']!r}", path=path)
    if not 1 <= meta["dim"] <= 65_536:
        raise InputError(f"field 'dim' must be in [1, 65,536], not {meta['dim']}", path=path)
    text = meta.get("text")
    if text is not None and not (isinstance(text.get("lang"), str)
                                 and isinstance(text.get("tagger", ""), (str, type(None)))
                                 and isinstance(text.get("rules", []), list)
                                 and all(isinstance(r, str) for r in text.get("rules", []))):
        raise InputError("field 'text' must be {\"lang\": CODE, \"tagger\": HASH, \"rules\": "
                         "[NAME, ...]}", path=path)
    if meta.get("encoder_weights") not in (None, "."):
        raise InputError("field 'encoder_weights' must be null or \".\"", path=path)
    return meta


def check_consistent(meta: dict, mapping, path: Path) -> None:
    """The fields that describe the mapping and the signature agree with what was loaded
    (an edited ``mapped_side`` or signature is refused, not scored under a wrong name)."""
    from alignment.signature import export_signature

    side = "src" if mapping.is_source_only() else "both"
    if meta["mapped_side"] != side:
        raise InputError(f"field 'mapped_side' says {meta['mapped_side']!r} but the mapping "
                         f"moves {'the source side only' if side == 'src' else 'both sides'}",
                         path=path)
    if meta["mapping_type"] != mapping.describe():
        raise InputError(f"field 'mapping_type' says {meta['mapping_type']!r} but the mapping "
                         f"is {mapping.describe()!r}", path=path)
    expected = export_signature(meta)
    if meta["signature"] != expected:
        raise InputError(f"field 'signature' does not match the other fields (expected "
                         f"{expected})", path=path)
