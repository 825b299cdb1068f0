"""Errors raised on bad input, each naming the file and line or the parameter at fault."""
from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad user input detected before any expensive work starts."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None,
                 parameter: str | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        elif parameter is not None:
            where = f"parameter '{parameter}': "
        super().__init__(where + message)
        self.message = message  # without the place, for an error that re-raises it elsewhere
        self.path = None if path is None else str(path)
        self.line = line
        self.parameter = parameter


class TrainingDiverged(RuntimeError):
    """A trained mapping's loss became NaN or infinite: the settings (learning rate, depth) do
    not suit the data. Raised at once, so no garbage map is saved or scored. Not an input
    error: the input was valid, the optimisation failed; ``parameter`` names what to change."""

    def __init__(self, message: str, parameter: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter
