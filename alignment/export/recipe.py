"""An export's recipe: the public data, the one ``crossalign train`` command that made it, the
scoring options its card measures it with, and variants built on demand (a flow), kept in the
export as ``recipe.json``, so that an export is provenance rather than a binary to trust.
``crossalign export --build NAME --from CLONE`` replays it and compares what it made with the
export, fingerprint by fingerprint (``compare``)."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from alignment.atomic import write_text
from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.names import CORPUS, LANGUAGE

from .recipe_options import SCORE_OPTIONS, TRAIN_OPTIONS, check_options, check_variant_name

RECIPE_FILE = "recipe.json"
RECIPE_FORMAT = "crossalign-recipe-1"
# data sets built from the machine's own packages: no clone, no pair folder
LOCAL_DATA = ("bible",)
# where the training text may come from instead of the benchmark's own train split
TEXT_FROM = ("parallel",)  # crossalign data parallel: the machine's packaged translations
# the keys of recipe.json (``commands`` is written for readers and derived, never read)
RECIPE_KEYS = {"format", "benchmark", "pair", "train", "score", "variants", "text_from",
               "commands"}
# what must be equal for a rebuilt export to be the shipped one (remap.json fields)
COMPARED = ("mapping_fingerprint", "data_fingerprint", "n_pairs", "sentence_map", "signature")


@dataclass(frozen=True)
class Recipe:
    """``benchmark``'s data folder (``crossalign data BENCHMARK --from CLONE``; ``bible``:
    from the machine's SWORD modules) gives ``train.xx`` and ``train.yy``; ``train`` is every
    other option of the ``crossalign train`` command run on them; ``score`` the options the
    export is scored and measured with (``--lm smollm2-135m --lm-weight 0.01``); ``variants``
    other exports of the same recipe, each the train options it replaces (``flow``);
    ``text_from`` ``parallel``: the text is ``crossalign data parallel``'s for the pair (the
    machine's packaged translations; a pair with no English side is paired through the English
    messages both languages' catalogues translate), the benchmark still measures the card."""

    benchmark: str
    pair: str
    train: tuple[str, ...]
    score: tuple[str, ...] = ()
    variants: tuple[tuple[str, tuple[str, ...]], ...] = ()
    text_from: str | None = None
    # where the recipe came from (its recipe.json), named by every refusal; not compared
    source: str = field(default="recipe", compare=False, repr=False)

    def __post_init__(self) -> None:
        """Every part of the recipe read as data (``recipe_options``): the pair, each option
        list against what a recipe may set, the variants' names, refused in one line naming
        ``source``."""
        where = self.source
        parts = self.pair.split("-")
        if len(parts) != 2 or not all(LANGUAGE.fullmatch(p) for p in parts):
            raise InputError(f"{where}: pair '{self.pair}' is not xx-yy (two language codes)")
        if not CORPUS.fullmatch(self.benchmark) or ".." in self.benchmark:
            raise InputError(f"{where}: benchmark {self.benchmark!r} is not a plain name")
        check_options(self.train, TRAIN_OPTIONS, f"{where} 'train'")
        check_options(self.score, SCORE_OPTIONS, f"{where} 'score'")
        for name, options in self.variants:
            check_variant_name(name, where)
            check_options(options, TRAIN_OPTIONS, f"{where} 'variants.{name}'")
        if self.text_from is not None:
            if self.text_from not in TEXT_FROM:
                raise InputError(f"{where}: text_from {self.text_from!r} is not one of "
                                 f"{', '.join(TEXT_FROM)}")

    def variant(self, name: str) -> "Recipe":
        """The recipe of variant ``name``: its options set over the train command's."""
        check_choice(name, dict(self.variants), "variant", "variant")
        options = dict(self.variants)[name]
        out = replace(self, variants=())
        for flag, value in zip(options[::2], options[1::2]):
            out = out.with_option(flag, value)
        return out

    def with_option(self, flag: str, value: str) -> "Recipe":
        """This recipe with ``flag value`` set (replaced where it is, else added)."""
        train = list(self.train)
        if flag in train:
            train[train.index(flag) + 1] = value
        else:
            train += [flag, value]
        return replace(self, train=tuple(train))

    @property
    def needs_clone(self) -> bool:
        return self.benchmark not in LOCAL_DATA

    def folder(self, data: str | Path) -> Path:
        """The pair's folder in a data folder (``test.tsv``, ``train.xx``)."""
        base = Path(data) / self.benchmark
        return base if not self.needs_clone else base / self.pair

    def text(self, data: str | Path) -> tuple[Path, Path]:
        """(source text, target text) of the pair in a data folder."""
        src, tgt = self.pair.split("-")
        folder = self.folder(data) if self.text_from is None else \
            Path(data) / f"parallel-{self._parallel_pair()}"
        return folder / f"train.{src}", folder / f"train.{tgt}"

    def _parallel_pair(self) -> str:
        """The pair as ``crossalign data parallel --pair`` takes it: ``X-en`` where one side is
        English, else the pair itself (pivoting on the catalogues' English messages)."""
        if "en" not in self.pair.split("-"):
            return self.pair
        other = next(x for x in self.pair.split("-") if x != "en")
        return f"{other}-en"

    def text_command(self, out: str = "data") -> list[str] | None:
        """The command that builds the training text, where it is not the benchmark's own."""
        if self.text_from is None:
            return None
        pair = self._parallel_pair()
        # no English side: the gettext catalogues alone, as installed (the help pages' packages
        # would be fetched, and a build reads only what the machine has)
        alone = ["--sources", "gettext", "--no-fetch"] if pair == self.pair else []
        return ["crossalign", "data", "parallel", "--pair", pair, *alone, "--out",
                f"{out}/parallel-{pair}"]

    def data_command(self, clone: str = "CLONE", out: str = "data") -> list[str]:
        if not self.needs_clone:
            return ["crossalign", "data", self.benchmark, "--pair", self.pair, "--out",
                    f"{out}/{self.benchmark}"]
        return ["crossalign", "data", self.benchmark, "--from", clone, "--out",
                f"{out}/{self.benchmark}", "--pairs", self.pair]

    def train_command(self, data: str | Path = "data", out: str = "runs/rebuilt") -> list[str]:
        src, tgt = self.text(data)
        return ["crossalign", "train", *self.train, "--src", str(src), "--tgt", str(tgt),
                "--out", out]

    def shell(self) -> str:
        """The commands (data, text where it is not the benchmark's, train), as a reader
        would type them."""
        steps = (self.data_command(), self.text_command(), self.train_command())
        return "\n".join(shlex.join(c) for c in steps if c is not None)

    def as_dict(self) -> dict:
        out = {"format": RECIPE_FORMAT, "benchmark": self.benchmark, "pair": self.pair,
               "train": list(self.train)}
        if self.text_from is not None:
            out["text_from"] = self.text_from
        if self.score:
            out["score"] = list(self.score)
        if self.variants:
            out["variants"] = {k: list(v) for k, v in self.variants}
        return {**out, "commands": self.shell().splitlines()}

    def as_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n"

    def write(self, export: str | Path) -> Path:
        path = Path(export) / RECIPE_FILE
        write_text(path, self.as_json())
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
        variants = raw.get("variants", {})
        lists = [("train", raw["train"]), ("score", raw.get("score", [])),
                 *((f"variants.{k}", v) for k, v in (variants.items()
                                                     if isinstance(variants, dict) else []))]
        if not isinstance(variants, dict):
            raise InputError("'variants' must be an object of option lists", path=path)
        for key, value in lists:
            if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
                raise InputError(f"'{key}' must be a list of strings", path=path)
        unknown = sorted(set(raw) - RECIPE_KEYS)
        if unknown:
            raise InputError(f"'{unknown[0]}' is not a recipe key (a recipe has "
                             f"{', '.join(sorted(RECIPE_KEYS))})", path=path)
        text_from = raw.get("text_from")
        if text_from is not None and not isinstance(text_from, str):
            raise InputError("'text_from' must be a string", path=path)
        return cls(raw["benchmark"], raw["pair"], tuple(raw["train"]),
                   tuple(raw.get("score", [])), tuple((k, tuple(v)) for k, v in variants.items()),
                   text_from, source=str(path))


def rebuild_section(name: str, recipe: Recipe, variant: str | None = None) -> list[str]:
    """What an export's card says of its recipe: the one command that rebuilds and checks it."""
    clone = "" if not recipe.needs_clone else " --from CLONE"
    build = f"crossalign export --build {name.rpartition('-')[0] if variant else name}" + (
        f" --variant {variant}" if variant else "") + clone
    return [
        "`recipe.json` holds the data and the one `train` command that made this export. This "
        "replays them" + (" from CLONE (a clone of the benchmark's public repository)"
                          if recipe.needs_clone else "") + (
            " into the cache, where the name finds it" if variant else
            " and compares every fingerprint with the shipped one") + " (docs/exports.md):", "",
        "```sh", build + ("" if variant else f" --out rebuilt/{name}"), "```", "",
        "It runs:", "", "```sh", recipe.shell(), "```"]


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
