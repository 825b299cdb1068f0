"""One reader for the JSON files crossalign keeps or is given (``remap.json``, ``scoring.json``,
sentence maps, run records): any fault — missing, a folder, unreadable, not UTF-8, not JSON,
nested beyond the parser — is one error naming the file, never a traceback."""
from __future__ import annotations

import json
from pathlib import Path

from alignment.errors import InputError


def read_json(path: str | Path, what: str = "a JSON file") -> object:
    """``path``'s JSON value; ``what`` says in an error what the file should have been."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise InputError(f"is a folder, not {what}", path=path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON ({err.msg})", path=path, line=err.lineno) from None
    except UnicodeDecodeError:
        raise InputError("not valid UTF-8", path=path) from None
    except RecursionError:
        raise InputError(f"nested too deeply to be {what}", path=path) from None
    except OSError as err:
        raise InputError(f"cannot be read ({err.strerror or err})", path=path) from None
