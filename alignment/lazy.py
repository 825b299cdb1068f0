"""Public names of a package imported on first use (PEP 562), so that importing a light
submodule (``alignment.errors``, ``alignment.xmover.versions``) does not load torch."""
from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_attributes(package: str, names: dict[str, str],
                    namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``names[attr]`` (a submodule of ``package``) on
    first access to ``attr`` and keeps the value in ``namespace``."""
    def __getattr__(attr: str) -> Any:
        if attr not in names:
            raise AttributeError(f"module '{package}' has no attribute '{attr}'")
        value = getattr(importlib.import_module(f".{names[attr]}", package), attr)
        namespace[attr] = value
        return value

    return __getattr__
