"""Where crossalign caches what is expensive to remake (vectors, word links, helper builds)."""
from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$CROSSALIGN_CACHE``, else ``~/.cache/crossalign``."""
    return Path(os.environ.get("CROSSALIGN_CACHE", Path.home() / ".cache" / "crossalign"))
