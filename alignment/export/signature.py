"""One-line signatures that say exactly how an export or a score was made (after sacreBLEU)."""
from __future__ import annotations

from alignment.version import __version__


def signature(fields: dict[str, object], prefix: str = "crossalign",
              version: str | None = None) -> str:
    """``crossalign|v:0.3.0|key:value|...`` with keys in the given order; None values omitted;
    ``version``: the package version that made the thing signed (default: this one)."""
    parts = [prefix, f"v:{version or __version__}"]
    parts += [f"{k}:{v}" for k, v in fields.items() if v is not None]
    return "|".join(parts)


def parse_signature(text: str) -> dict[str, str]:
    """Inverse of ``signature`` for the key:value fields."""
    items = text.split("|")[1:]
    return dict(item.split(":", 1) for item in items)


def export_signature(meta: dict) -> str:
    """Signature of a remapped-encoder export from its ``remap.json`` fields."""
    tok = meta["tokenizer"]
    return signature({
        "enc": f"{meta['encoder']}@{meta.get('revision') or 'unknown'}",
        "L": meta["layer"], "pool": meta["pooling"],
        "tok": f"{tok['tokenizer']}.{'lc' if tok.get('lowercase') else 'cased'}"
               + (".nobare" if tok.get("subwords") else ""),
        "map": f"{meta['mapping_type']}#{meta['mapping_fingerprint']}",
        "side": meta["mapped_side"], "lang": f"{meta['src_lang']}-{meta['tgt_lang']}",
        "data": meta.get("data_fingerprint"), "pairs": meta.get("n_pairs"),
        "align": meta.get("aligner"),
        "ft": f"{meta['fine_tuned']}@{meta.get('base_revision') or 'unknown'}"
        if meta.get("fine_tuned") else None,
        "text": text_description(meta.get("text")),
    }, version=meta.get("package_version"))


def text_description(text: dict | None) -> str | None:
    """TEXT settings in a signature: language, tagger data hash, rules."""
    if not text:
        return None
    return f"{text.get('lang')}:{text.get('tagger')}:{'+'.join(text.get('rules', []))}"
