"""What a row of ``evaluate NAME`` (and a candidate of ``choose``) is: a label, the export or
encoder it scores each pair with and, where given, a setting of its own — so an ablation is a
rows file (``LABEL=EXPORT:SETTING`` a line), not a script."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from alignment.catalogue import check_choice
from alignment.errors import InputError
from alignment.export.named import resolve_export

SETTING_WORDS = ("export", "none")
"""The base of a row's setting: its export's scoring configuration (``export``, the default)
or none (the defaults alone), as ``--setting`` says for every row."""

SETTING_KEYS = ("formula", "read")
"""What a row's setting may give besides its base and the terms' weights."""


@dataclass(frozen=True)
class EncoderRow:
    """A metric row: its label and, per pair, the export or encoder to score with (``"*"``: the
    same for every pair); ``setting``: the scorer options this row gives over every row's
    (``{"setting": "none", "weights": {"sentence": 0.0}}``; empty: the common ones)."""

    label: str
    by_pair: dict[str, str]
    setting: dict = field(default_factory=dict)

    def encoder_for(self, pair: str) -> str:
        if pair in self.by_pair:
            return self.by_pair[pair]
        if "*" in self.by_pair:
            return self.by_pair["*"]
        raise InputError(f"row '{self.label}' names no export for pair {pair} (give "
                         f"{pair}=EXPORT, or leave the pair out with --pairs)", parameter="encoder")

    def options(self, common: dict) -> dict:
        """The scorer options of this row: ``common`` with the row's setting over it (its
        weights over the common weights, term by term)."""
        own = dict(self.setting)
        weights = {**(common.get("weights") or {}), **own.pop("weights", {})}
        return {**common, **own, "weights": weights}

    def key(self) -> tuple:
        """What tells this row's scorer apart from another row's on the same export."""
        weights = tuple(sorted((self.setting.get("weights") or {}).items()))
        return tuple(sorted((k, v) for k, v in self.setting.items() if k != "weights")), weights


def parse_row(spec: str, pairs: list[str], label: str | None = None) -> EncoderRow:
    """``EXPORT`` (every pair), ``de-en=EXPORT,cs-en=EXPORT`` (one a pair), or a folder whose
    sub-folders are named by pair (``exports/wmt17`` holding ``de-en/``, ``cs-en/``…)."""
    if "=" in spec:
        by_pair = {}
        for part in spec.split(","):
            pair, sep, path = part.partition("=")
            if not sep or not path or pair.count("-") != 1:
                raise InputError(f"'{part}' is not PAIR=EXPORT (e.g. de-en=exports/de-en)",
                                 parameter="encoder")
            by_pair[pair.strip()] = resolve_export(path.strip())
        return EncoderRow(label or spec, by_pair)
    spec_path = resolve_export(spec)  # a short name (wmt17, wmt17/de-en) or a path
    folder = Path(spec_path)
    if folder.is_dir() and not (folder / "remap.json").is_file() and \
            not (folder / "config.json").is_file():
        found = {p: str(folder / p) for p in pairs if (folder / p).is_dir()}
        if not found:
            raise InputError(f"'{spec}' is neither an export, a model folder nor a folder of "
                             f"exports named by pair ({', '.join(pairs)})", parameter="encoder")
        return EncoderRow(label or spec, found)
    return EncoderRow(label or spec, {"*": spec_path})


def parse_setting(spec: str, where: dict) -> dict:
    """A row's setting, ``none`` or ``export`` and/or ``TERM=W``, ``formula=F``, ``read=R``
    separated by commas (``none,sentence=0.5``), as scorer options; ``where``: the place an
    error names (``{"path": FILE, "line": N}`` or ``{"parameter": "row"}``)."""
    from alignment.terms import Setting, get_term
    from alignment.xmover.versions import DEFAULT_LAYERS
    from alignment.xmover.written import READINGS

    out: dict = {}
    weights: dict[str, float] = {}
    allowed = {"formula": tuple(DEFAULT_LAYERS), "read": READINGS}
    for item in (i.strip() for i in spec.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            if item not in SETTING_WORDS or "setting" in out:
                raise InputError(f"'{item}' in the setting '{spec}' is neither "
                                 f"{' nor '.join(SETTING_WORDS)} (once) nor NAME=VALUE", **where)
            out["setting"] = item
        elif key in SETTING_KEYS:
            try:
                out[key] = check_choice(value, allowed[key], key, "row")
            except InputError as e:
                raise InputError(e.message, **where) from None
        else:
            try:
                name = get_term(key, "row").name
            except InputError as e:
                raise InputError(e.message, **where) from None
            try:
                weights[name] = float(value)
            except ValueError:
                raise InputError(f"the weight of {name} must be a number, got '{value}'",
                                 **where) from None
    try:
        Setting.of(**weights)  # finite, >= 0
    except InputError as e:
        raise InputError(f"{e.message} (in the setting '{spec}')", **where) from None
    return {**out, **({"weights": weights} if weights else {})}


def parse_labelled_row(spec: str, pairs: list[str], where: dict | None = None) -> EncoderRow:
    """``LABEL=EXPORT`` or ``LABEL=EXPORT:SETTING`` (``parse_setting``): a row with a name and,
    where given, a setting of its own; EXPORT as ``--encoder`` takes it (a name, an export or
    model folder, or a folder of exports named by pair)."""
    where = where or {"parameter": "row"}
    label, sep, rest = spec.partition("=")
    if not sep or not label.strip() or not rest.strip():
        raise InputError(f"'{spec}' is not LABEL=EXPORT[:SETTING]", **where)
    export, colon, setting = rest.partition(":")
    try:
        row = parse_row(export.strip(), pairs, label.strip())
    except InputError as e:
        raise InputError(e.message, **where) from None
    return EncoderRow(row.label, row.by_pair,
                      parse_setting(setting, where) if colon and setting.strip() else {})


def read_rows(path: str | Path, pairs: list[str]) -> list[EncoderRow]:
    """A rows file: one ``LABEL=EXPORT[:SETTING]`` a line (blank lines and ``#`` comments
    skipped); an error names the file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such rows file", path=path)
    rows: list[EncoderRow] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            rows.append(parse_labelled_row(text, pairs, {"path": path, "line": number}))
    if not rows:
        raise InputError("the rows file has no row (LABEL=EXPORT[:SETTING] a line)", path=path)
    return rows


def check_labels(rows: list[EncoderRow]) -> None:
    """Two rows with one label would be one row of the table: refused, naming the label."""
    seen: set[str] = set()
    for row in rows:
        if row.label in seen:
            raise InputError(f"two rows are labelled '{row.label}'; give each its own label",
                             parameter="row")
        seen.add(row.label)
