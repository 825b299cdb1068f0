"""Where crossalign caches what is expensive to remake (vectors, word links, helper builds)."""
from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$CROSSALIGN_CACHE``, else ``~/.cache/crossalign``."""
    return Path(os.environ.get("CROSSALIGN_CACHE", Path.home() / ".cache" / "crossalign"))


def built_once(kind: str, name: str, version: int, build, marker: str = "provenance.json") -> Path:
    """``<cache>/KIND/NAME``, made by ``build(target)`` unless its ``marker`` (JSON) already
    records this build ``version`` (an older build is made again)."""
    import json

    target = default_cache_dir() / kind / name
    try:
        built = json.loads((target / marker).read_text())["build"] == version
    except (OSError, ValueError, KeyError, TypeError):
        built = False
    if not built:
        build(target)
    return target
