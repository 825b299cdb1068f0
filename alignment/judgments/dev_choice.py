"""Choosing on dev: the map (a candidate row), the LM weight and the sentence-term weight with
the best agreement with people on dev judgments — the rule for a new pair with a dev set. The
choice is pure arithmetic on scores (``choose_on_dev``; it never reads a test set); ``score_dev``
computes those scores and ``write_chosen`` writes the chosen export with a card that gives the
row chosen, the grid searched, the dev Pearson and the command."""
from __future__ import annotations

import json
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alignment.atomic import MANIFEST, atomic_dir, files_under
from alignment.errors import InputError
from alignment.encoding.precision import asked_precision
from alignment.export.card import CARD_FILE, SCORING_FILE, Headline, card_text, fmt_r, \
    markdown_table
from alignment.export.remapped import REMAP_FILE
from alignment.xmover.configuration import ScoringConfig
from alignment.terms import TERMS, Setting, setting_grid
from .agreement import Row, mean_pearson, segment_agreement
from .benchmark import Benchmark
from .segments import JudgedSegments

LM_WEIGHTS, SENTENCE_WEIGHTS = TERMS["lm"].grid, TERMS["sentence"].grid


@dataclass(frozen=True)
class Point:
    """One point of the grid: a row, the setting it is scored with, the dev agreement."""

    row: str
    setting: Setting
    pearson: float  # the mean over the dev set's pairs of each pair's Pearson

    @property
    def lm(self) -> float:
        return self.setting.weight("lm")

    @property
    def sentence(self) -> float:
        return self.setting.weight("sentence")

    def label(self) -> str:
        return self.setting.label(self.row)

    def as_dict(self) -> dict:
        weights = {"lm": self.lm, "sentence": self.sentence,
                   **{n: w for n, w in self.setting.weights if n != "xmover"}}
        return {"row": self.row, **weights, "pearson": self.pearson}


@dataclass(frozen=True)
class Selection:
    """The chosen point and the whole grid it was chosen from, in search order."""

    chosen: Point
    grid: tuple[Point, ...]
    pairs: tuple[str, ...]
    segments: int
    best: dict[str, Point]  # each row at its own best weights
    intervals: dict[str, tuple[float, float]]  # each row's best: 95% bootstrap CI over segments
    axes: dict[str, tuple[float, ...]]  # the weights searched, by term
    # the chosen point's score of every dev segment (what a calibration is fitted on)
    chosen_scores: np.ndarray | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict:
        return {"chosen": self.chosen.as_dict(), "pairs": list(self.pairs),
                "segments": self.segments, "axes": {k: list(v) for k, v in self.axes.items()},
                "grid": [s.as_dict() for s in self.grid],
                "best": {k: s.as_dict() for k, s in self.best.items()},
                "intervals": {k: list(v) for k, v in self.intervals.items()}}


def choose_on_dev(data: JudgedSegments, rows: dict[str, np.ndarray],
                  lm: np.ndarray | None = None,
                  sentence: np.ndarray | dict[str, np.ndarray] | None = None,
                  lm_weights: tuple[float, ...] = LM_WEIGHTS,
                  sentence_weights: tuple[float, ...] = SENTENCE_WEIGHTS, resamples: int = 1000,
                  seed: int = 0, terms: dict[str, np.ndarray] | None = None,
                  term_weights: dict[str, tuple[float, ...]] | None = None,
                  xmover: float = 1.0) -> Selection:
    """Every row × every setting of the grid (``setting_grid``: LM weight × sentence weight ×
    each registered term's weights), scored by the mean per-pair Pearson on ``data``; the best
    is chosen (a tie: the first in search order — rows as given, smaller weights first). A
    term without values is tried at weight 0 only. Each row's best setting gets a bootstrap
    interval (``resamples``, ``seed``), as ``evaluate`` gives one. ``xmover``: the rows'
    own weight (0: the other terms alone, the setting from English). ``sentence``: one term
    for every row, or each row's own (through its export's sentence map, as ``score``)."""
    if not rows:
        raise InputError("no candidate rows to choose from", parameter="candidates")
    own = dict(sentence) if isinstance(sentence, dict) else {k: sentence for k in rows}
    sentence = next(iter(own.values()), None)
    terms = {"lm": lm, "sentence": sentence, **(terms or {})}
    weights = {"lm": lm_weights, "sentence": sentence_weights, **{
        n: (term_weights or {}).get(n, TERMS[n].grid) for n in terms if n not in ("lm", "sentence")}}
    for name, ws in weights.items():
        if not ws or any(not np.isfinite(w) or w < 0 for w in ws):
            raise InputError(f"weights must be finite and >= 0, got {list(ws)}",
                             parameter=f"{name}-weights")
    for label, values in [*rows.items(), *terms.items(), *own.items()]:
        if values is not None and len(values) != len(data):
            raise InputError(f"{label}: {len(values)} scores for {len(data)} judged segments",
                             parameter="candidates")
    axes = {"xmover": (float(xmover),), **{n: tuple(sorted(set(ws))) if terms[n] is not None
                                            else (0.0,) for n, ws in weights.items()}}
    lp = np.asarray(data.lp)

    def scores(label: str, setting: Setting) -> np.ndarray:
        return setting.combine({"xmover": rows[label], **terms, "sentence": own.get(label)}, lp)

    grid = tuple(Point(label, s, mean_pearson(data, scores(label, s)))
                 for label in rows for s in setting_grid(axes))
    finite = [s for s in grid if np.isfinite(s.pearson)]
    if not finite:
        raise InputError("no setting has a finite Pearson on dev (constant scores?)",
                         parameter="dev")
    best = max(finite, key=lambda s: s.pearson)  # max keeps the first of equals
    per_row = {label: max((s for s in finite if s.row == label), key=lambda s: s.pearson)
               for label in rows if any(s.row == label for s in finite)}
    metrics = segment_agreement(data, [Row(k, scores(k, s.setting), "")
                                       for k, s in per_row.items()], resamples, seed)
    intervals = {k: (metrics[f"{k}/avg/pearson_lo"], metrics[f"{k}/avg/pearson_hi"])
                 for k in per_row}
    return Selection(best, grid, tuple(data.pairs), len(data), per_row, intervals, axes,
                     scores(best.row, best.setting))


def best_weight(data: JudgedSegments, base: np.ndarray, term: np.ndarray,
                weights: tuple[float, ...]) -> tuple[float, dict[float, float]]:
    """The weight of one added term (as the LM term) with the best mean per-pair Pearson, and
    every weight's."""
    found = choose_on_dev(data, {"base": base}, term, None, tuple(weights), (0.0,), resamples=1)
    return found.chosen.lm, {p.lm: p.pearson for p in found.grid}


CHOICE_FILE = "chosen.json"


def chosen_config(selection: Selection, dev: str, lm: str | None, options: dict,
                  signature: str) -> ScoringConfig:
    """The chosen setting as the chosen export's scoring configuration, its dev agreement the
    headline (``options``: the scorer's formula, precision and reading)."""
    c = selection.chosen
    lo, hi = selection.intervals[c.row]
    return ScoringConfig.of(c.setting, Headline(f"{c.label()} (chosen on dev)", c.pearson, lo, hi,
                                                dev, signature),
                            formula=options.get("formula") or "2022",
                            read=options.get("read") or "given",
                            precision=asked_precision(getattr(options.get("runtime"),
                                                              "precision", None)) or "fp32",
                            lm=lm if c.lm else None)


def card(pair: str, selection: Selection, config: ScoringConfig, command: str,
         signatures: dict[str, str], export: str = "EXPORT", mapped: bool = False) -> str:
    """The chosen export's card: what was chosen, on what, among what, and the commands."""
    c, best, dev = selection.chosen, selection.best, config.measured.on
    ci = {k: f"[{fmt_r(lo)}, {fmt_r(hi)}]" for k, (lo, hi) in selection.intervals.items()}
    top = sorted((s for s in selection.grid if np.isfinite(s.pearson)),  # no term: no score
                 key=lambda s: -s.pearson)[:10]
    names = [n for n, ws in selection.axes.items()
             if n != "xmover" and (len(ws) > 1 or any(ws))]
    searched = "; ".join(f"{TERMS[n].label} weights {', '.join(f'{w:g}' for w in ws)}"
                         for n, ws in selection.axes.items() if n != "xmover")
    about = [f"`⊕ {TERMS[n].label}` adds the weight × {TERMS[n].about}." for n in names]
    body = [
        f"Chosen by `crossalign choose` on {dev} ({selection.segments} judged segments; pairs "
        f"{', '.join(selection.pairs)}) among the rows {', '.join(f'`{r}`' for r in best)} "
        f"({searched}), by the mean over pairs of each pair's Pearson with the human scores. "
        "No test set was read: the number above is a dev number, optimistic for new text; "
        "measure the export on test data with `crossalign evaluate`.", "",
        "Each row at its best weights (the interval: a bootstrap over segments, as `evaluate` "
        "gives it), then the grid's ten best points:", "",
        *markdown_table(["row", *[f"{TERMS[n].label} weight" for n in names],
                         "dev Pearson [95% CI]"],
                        [[f"{s.row} (its best)", *[f"{s.setting.weight(n):g}" for n in names],
                          f"{fmt_r(s.pearson)} {ci[s.row]}"] for s in best.values()] +
                        [[s.row, *[f"{s.setting.weight(n):g}" for n in names], fmt_r(s.pearson)]
                         for s in top]), "",
        *about, f"`{CHOICE_FILE}` holds the whole grid."]
    use = ["The export scores with the chosen setting (its `scoring.json`" + (
               "; the sentence-level term through the export's own sentence map, as measured"
               if mapped and c.sentence else "") + "):", "", "```sh",
           f"crossalign score --encoder {export} --src SRC --hyp MT", "```", "",
           "On an encoder or export without it, the same setting is:", "", "```sh",
           f"crossalign score --encoder ENCODER --src SRC --hyp MT {shlex.join(config.options())}",
           "```"]
    made = ["```sh", command, "```", "", "Signatures of the rows scored:", "",
            *[f"- {label}: `{sig}`" for label, sig in signatures.items()]]
    return card_text(f"{pair}: chosen on dev — {c.label()}", config.measured,
                     [("How it was chosen", body), ("Use it", use), ("Made by", made)])


def write_chosen(out: Path, source: Path, selection: Selection, pair: str,
                 config: ScoringConfig, command: str, signatures: dict[str, str],
                 mapped: bool = False) -> None:
    """``out``: a copy of the chosen export ``source`` with its scoring configuration, card and
    ``chosen.json`` (the whole grid), written beside and renamed into place (a previous output
    of crossalign is replaced). ``mapped``: the chosen row's sentence term was measured through
    its sentence map."""
    with atomic_dir(out, REMAP_FILE, inputs=(source,)) as tmp:
        for name in sorted(files_under(source)):
            if name in (MANIFEST, CARD_FILE, CHOICE_FILE, SCORING_FILE):
                continue
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / name, tmp / name)
        config.write(tmp)
        (tmp / CARD_FILE).write_text(card(pair, selection, config, command, signatures,
                                          str(out), mapped), encoding="utf-8")
        (tmp / CHOICE_FILE).write_text(json.dumps(
            {**selection.as_dict(), "pair": pair, "dev": config.measured.on, "lm": config.lm,
             "read": config.read, "command": command, "signatures": signatures}, indent=1,
            ensure_ascii=False), encoding="utf-8")


def identity_export(encoder, pair: str, folder: Path) -> Path:
    """An identity export of a loaded ``Encoder`` (the unmapped encoder, chosen) in ``folder``
    (a scratch folder the caller removes)."""
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_remapped
    from alignment.mappings.affine import Identity

    src, tgt = pair.split("-")
    export_remapped(folder, Identity(encoder.dim),
                    DataProvenance(encoder.identity(), None, None, None, "dev", src, tgt))
    return folder
