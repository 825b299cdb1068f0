"""An export's recipe: the public data and the one ``crossalign train`` command that made it,
kept in the export as ``recipe.json``, so that an export is provenance rather than a binary to
trust. ``crossalign export --build NAME --from CLONE`` replays it and compares what it made
with the export, fingerprint by fingerprint (``compare``)."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from alignment.atomic import write_text
from alignment.errors import InputError

RECIPE_FILE = "recipe.json"
RECIPE_FORMAT = "crossalign-recipe-1"
# options the build sets itself: the text comes from the data folder, the output is its own
SET_BY_BUILD = ("--src", "--tgt", "--out", "--overwrite", "--config")
# what must be equal for a rebuilt export to be the shipped one (remap.json fields)
COMPARED = ("mapping_fingerprint", "data_fingerprint", "n_pairs", "sentence_map", "signature")
REBUILD_HEADING = "## Rebuild it"


@dataclass(frozen=True)
class Recipe:
    """``benchmark``'s data folder (``crossalign data BENCHMARK --from CLONE``) gives
    ``PAIR/train.xx`` and ``PAIR/train.yy``; ``train`` is every other option of the
    ``crossalign train`` command run on them."""

    benchmark: str
    pair: str
    train: tuple[str, ...]

    def __post_init__(self) -> None:
        problem = _problem(self.pair, self.train)
        if problem:
            raise InputError(problem, parameter="recipe")

    def with_option(self, flag: str, value: str) -> "Recipe":
        """This recipe with ``flag value`` set (replaced where it is, else added)."""
        train = list(self.train)
        if flag in train:
            train[train.index(flag) + 1] = value
        else:
            train += [flag, value]
        return Recipe(self.benchmark, self.pair, tuple(train))

    def text(self, data: str | Path) -> tuple[Path, Path]:
        """(source text, target text) of the pair in a data folder."""
        src, tgt = self.pair.split("-")
        folder = Path(data) / self.benchmark / self.pair
        return folder / f"train.{src}", folder / f"train.{tgt}"

    def data_command(self, clone: str = "CLONE", out: str = "data") -> list[str]:
        return ["crossalign", "data", self.benchmark, "--from", clone, "--out",
                f"{out}/{self.benchmark}", "--pairs", self.pair]

    def train_command(self, data: str | Path = "data", out: str = "runs/rebuilt") -> list[str]:
        src, tgt = self.text(data)
        return ["crossalign", "train", *self.train, "--src", str(src), "--tgt", str(tgt),
                "--out", out]

    def shell(self) -> str:
        """The two commands, as a reader would type them."""
        return "\n".join(shlex.join(c) for c in (self.data_command(), self.train_command()))

    def as_dict(self) -> dict:
        return {"format": RECIPE_FORMAT, "benchmark": self.benchmark, "pair": self.pair,
                "train": list(self.train), "commands": self.shell().splitlines()}

    def write(self, export: str | Path) -> Path:
        path = Path(export) / RECIPE_FILE
        write_text(path, json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n")
        return path

    @classmethod
    def read(cls, export: str | Path) -> "Recipe":
        """The recipe kept in ``export``; a missing or malformed one is refused, naming it."""
        path = Path(export) / RECIPE_FILE
        if not path.is_file():
            raise InputError(f"{export} keeps no {RECIPE_FILE}: it cannot be rebuilt",
                             parameter="build")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise InputError(f"not JSON ({err.msg})", path=path, line=err.lineno) from None
        if not isinstance(raw, dict) or raw.get("format") != RECIPE_FORMAT:
            raise InputError(f"'format' must be {RECIPE_FORMAT!r}", path=path)
        for key, kind in (("benchmark", str), ("pair", str), ("train", list)):
            if not isinstance(raw.get(key), kind):
                raise InputError(f"'{key}' must be a {kind.__name__}", path=path)
        if not all(isinstance(a, str) for a in raw["train"]):
            raise InputError("'train' must be a list of strings", path=path)
        problem = _problem(raw["pair"], raw["train"])
        if problem:
            raise InputError(problem, path=path)
        return cls(raw["benchmark"], raw["pair"], tuple(raw["train"]))


def card_section(name: str, recipe: Recipe, repository: str = "", note: str = "") -> str:
    """What an export's card says of its recipe: the one command that rebuilds and checks it
    (``note``: what is known of how it reproduces, when not every fingerprint does)."""
    clone = f" (a clone of https://github.com/{repository})" if repository else ""
    return "\n".join([
        REBUILD_HEADING, "",
        f"`recipe.json` holds the public data and the one `train` command that made this "
        f"export. This replays them from CLONE{clone} and compares every fingerprint with the "
        "shipped one (docs/exports.md):", "", "```sh",
        f"crossalign export --build {name} --from CLONE --out rebuilt/{name}", "```", "",
        "It runs:", "", "```sh", recipe.shell(), "```", "", *([note, ""] if note else [])])


def with_card_section(card: str, section: str) -> str:
    """``card`` with its rebuild section replaced by (or ended with) ``section``."""
    return card.split(REBUILD_HEADING)[0].rstrip("\n") + "\n\n" + section


def _problem(pair: str, train) -> str | None:
    """What is wrong with a recipe's pair or train options (None: nothing)."""
    parts = pair.split("-")
    if len(parts) != 2 or not all(parts):
        return f"recipe pair '{pair}' is not xx-yy"
    given = sorted(set(train) & set(SET_BY_BUILD))
    if given:
        return (f"a recipe's train options may not set {', '.join(given)}: the build gives the "
                "text and the output folder")
    return None


def compare(shipped: dict, built: dict) -> list[tuple[str, object, object, bool]]:
    """(field, shipped, rebuilt, equal) for every ``COMPARED`` field of two ``remap.json``s;
    the package version is left out of the signature (a rebuild by a newer release that
    makes the same maps is the same export)."""
    def signature(meta: dict) -> str:
        return "|".join(p for p in str(meta.get("signature", "")).split("|")
                        if not p.startswith("v:"))

    rows = []
    for key in COMPARED:
        a, b = ((signature(shipped), signature(built)) if key == "signature"
                else (shipped.get(key), built.get(key)))
        rows.append((key, a, b, a == b))
    return rows
