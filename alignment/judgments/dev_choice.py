"""Choosing on dev: the map (a candidate row), the LM weight and the sentence-term weight with
the best agreement with people on dev judgments — the rule for a new pair with a dev set. The
choice is pure arithmetic on scores (``choose_on_dev``; it never reads a test set); ``score_dev``
computes those scores and ``write_chosen`` writes the chosen export with a card that gives the
row chosen, the grid searched, the dev Pearson and the command."""
from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from alignment.atomic import MANIFEST, atomic_dir, files_under
from alignment.errors import InputError
from alignment.evaluation.correlation import pearson
from alignment.export.remapped import REMAP_FILE
from .agreement import Row, segment_agreement
from .benchmark import Benchmark
from .scoring import EncoderRow, score_benchmark
from .segments import JudgedSegments

LM_WEIGHTS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
SENTENCE_WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0)


@dataclass(frozen=True)
class Setting:
    """One point of the grid: a row, its weights, and the dev agreement they reach."""

    row: str
    lm: float
    sentence: float
    pearson: float  # the mean over the dev set's pairs of each pair's Pearson

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Selection:
    """The chosen setting and the whole grid it was chosen from, in search order."""

    chosen: Setting
    grid: tuple[Setting, ...]
    pairs: tuple[str, ...]
    segments: int
    best: dict[str, Setting]  # each row at its own best weights
    intervals: dict[str, tuple[float, float]]  # each row's best: 95% bootstrap CI over segments

    def as_dict(self) -> dict:
        return {"chosen": self.chosen.as_dict(), "pairs": list(self.pairs),
                "segments": self.segments, "grid": [s.as_dict() for s in self.grid],
                "best": {k: s.as_dict() for k, s in self.best.items()},
                "intervals": {k: list(v) for k, v in self.intervals.items()}}


def combined(base: np.ndarray, lm: np.ndarray | None, sentence: np.ndarray | None,
             lm_weight: float, sentence_weight: float) -> np.ndarray:
    """A row ⊕ ``lm_weight`` × the LM term ⊕ ``sentence_weight`` × the sentence-level term."""
    out = np.asarray(base, dtype=np.float64)
    if lm_weight:
        out = out + lm_weight * lm
    if sentence_weight:
        out = out + sentence_weight * sentence
    return out


def mean_pearson(data: JudgedSegments, scores: np.ndarray) -> float:
    """The mean over ``data``'s pairs of each pair's Pearson with the human scores."""
    lp = np.asarray(data.lp)
    return float(np.mean([pearson(scores[lp == p], data.human[lp == p]) for p in data.pairs]))


def choose_on_dev(data: JudgedSegments, rows: dict[str, np.ndarray],
                  lm: np.ndarray | None = None, sentence: np.ndarray | None = None,
                  lm_weights: tuple[float, ...] = LM_WEIGHTS,
                  sentence_weights: tuple[float, ...] = SENTENCE_WEIGHTS, resamples: int = 1000,
                  seed: int = 0) -> Selection:
    """Every row × LM weight × sentence weight, scored by the mean per-pair Pearson on
    ``data``; the best is chosen (a tie: the first in search order — rows as given, smaller
    weights first). Without ``lm`` (``sentence``) only the weight 0 is tried. Each row's best
    setting gets a bootstrap interval (``resamples``, ``seed``), as ``evaluate`` gives one."""
    if not rows:
        raise InputError("no candidate rows to choose from", parameter="candidates")
    for name, weights in (("lm-weights", lm_weights), ("sentence-weights", sentence_weights)):
        if not weights or any(not np.isfinite(w) or w < 0 for w in weights):
            raise InputError(f"weights must be finite and >= 0, got {list(weights)}",
                             parameter=name)
    for label, values in [*rows.items(), ("LM", lm), ("sentence term", sentence)]:
        if values is not None and len(values) != len(data):
            raise InputError(f"{label}: {len(values)} scores for {len(data)} judged segments",
                             parameter="candidates")
    lm_grid = sorted(set(lm_weights)) if lm is not None else [0.0]
    sentence_grid = sorted(set(sentence_weights)) if sentence is not None else [0.0]
    grid = tuple(Setting(label, c, w, mean_pearson(data, combined(base, lm, sentence, c, w)))
                 for label, base in rows.items() for c in lm_grid for w in sentence_grid)
    finite = [s for s in grid if np.isfinite(s.pearson)]
    if not finite:
        raise InputError("no setting has a finite Pearson on dev (constant scores?)",
                         parameter="dev")
    best = max(finite, key=lambda s: s.pearson)  # max keeps the first of equals
    per_row = {label: max((s for s in finite if s.row == label), key=lambda s: s.pearson)
               for label in rows if any(s.row == label for s in finite)}
    metrics = segment_agreement(data, [Row(k, combined(rows[k], lm, sentence, s.lm, s.sentence),
                                           "") for k, s in per_row.items()], resamples, seed)
    intervals = {k: (metrics[f"{k}/avg/pearson_lo"], metrics[f"{k}/avg/pearson_hi"])
                 for k in per_row}
    return Selection(best, grid, tuple(data.pairs), len(data), per_row, intervals)


def best_weight(data: JudgedSegments, base: np.ndarray, term: np.ndarray,
                weights: tuple[float, ...]) -> tuple[float, dict[float, float]]:
    """The weight of one added term with the best mean per-pair Pearson, and every weight's."""
    scores = {w: mean_pearson(data, combined(base, term, None, w, 0.0)) for w in weights}
    return max(scores, key=scores.get), scores


CHOICE_FILE, CARD_FILE = "chosen.json", "README.md"


def fmt_r(value: float) -> str:
    """A Pearson as the cards print it: three decimals, a true minus sign."""
    return f"{value:.3f}".replace("-", "−")


@dataclass
class DevScores:
    """Every candidate's XMoverScore, the LM term and the sentence-level term on dev."""

    rows: dict[str, np.ndarray]
    lm: np.ndarray | None
    sentence: np.ndarray | None
    signatures: dict[str, str]


def score_dev(benchmark: Benchmark, data: JudgedSegments, rows: list[EncoderRow], options: dict,
              lm: str | None, with_sentence: bool, log=print) -> DevScores:
    """The scores ``choose_on_dev`` needs. The sentence-level term is the first candidate's
    encoder's own (its last layer; no sentence map), added to no row here."""
    plain = {**options, "sentence_coef": 0.0, "sentence_map": "none"}
    result = score_benchmark(benchmark, data, rows, plain, lm, 0.0, with_baselines=False,
                             resamples=1, log=log)
    by_label = {r.label: r for r in result.rows}
    signatures = {r.label: by_label[r.label].signature for r in rows}
    if lm:
        signatures["LM"] = by_label["LM alone"].signature
    sentence = None
    if with_sentence:
        from alignment.evaluation.metrics import get_metric
        from alignment.xmover.sentence import SentenceSimilarity

        sentence, lp = np.zeros(len(data)), np.asarray(data.lp)
        for pair in data.pairs:
            log(f"scoring {pair} with the sentence-level term")
            mask = np.flatnonzero(lp == pair)
            scorer = get_metric("xmoverscore").build(rows[0].encoder_for(pair),
                                                     languages=tuple(pair.split("-")), **plain)
            term = SentenceSimilarity(scorer.encoder)
            sentence[mask] = term.score([data.src[i] for i in mask], [data.mt[i] for i in mask])
            signatures["sentence"] = f"sentence:{term.describe()}"
    return DevScores({r.label: by_label[r.label].scores for r in rows},
                     by_label["LM alone"].scores if lm else None, sentence, signatures)


def card(pair: str, selection: Selection, dev: str, lm: str | None, command: str,
         signatures: dict[str, str], export: str = "EXPORT") -> str:
    """The chosen export's card: what was chosen, on what, among what, and the commands."""
    c, best = selection.chosen, selection.best
    ci = {k: f"[{fmt_r(lo)}, {fmt_r(hi)}]" for k, (lo, hi) in selection.intervals.items()}
    top = sorted(selection.grid, key=lambda s: -s.pearson)[:10]
    lm_flags = f" --lm {lm} --lm-coef {c.lm:g}" if lm and c.lm else ""
    sent_flags = f" --sentence-coef {c.sentence:g}" if c.sentence else ""
    lines = [
        f"# {pair}: chosen on dev — {c.row}, LM weight {c.lm:g}, sentence weight {c.sentence:g}",
        "",
        f"Chosen by `crossalign choose` on {dev} ({selection.segments} judged segments; pairs "
        f"{', '.join(selection.pairs)}) among the rows {', '.join(f'`{r}`' for r in best)}, "
        f"LM weights {', '.join(sorted({f'{s.lm:g}' for s in selection.grid}, key=float))} "
        f"and sentence-term weights "
        f"{', '.join(sorted({f'{s.sentence:g}' for s in selection.grid}, key=float))}, by the "
        "mean over pairs of each pair's Pearson with the human scores. No test set was read: "
        "the number below is a dev number, optimistic for new text; measure the export on test "
        "data with `crossalign evaluate`.", "",
        "| row | dev Pearson [95% CI] |", "|---|---|",
        f"| {c.row} ⊕ {c.lm:g} LM ⊕ {c.sentence:g} sentence (chosen on dev) | "
        f"{fmt_r(c.pearson)} {ci[c.row]} |",
        "", "Each row at its best weights (the interval: a bootstrap over segments, as "
        "`evaluate` gives it), then the grid's ten best points:", "",
        "| row | LM weight | sentence weight | dev Pearson [95% CI] |", "|---|---|---|---|",
        *[f"| {s.row} (its best) | {s.lm:g} | {s.sentence:g} | {fmt_r(s.pearson)} {ci[s.row]} |"
          for s in best.values()],
        *[f"| {s.row} | {s.lm:g} | {s.sentence:g} | {fmt_r(s.pearson)} |" for s in top], "",
        "`⊕ LM` adds the weight × the LM's mean token log-probability of the MT output; "
        "`⊕ sentence` the weight × the cosine of the encoder's own sentence embeddings of "
        "source and output. `chosen.json` holds the whole grid.", "",
        "Use it (the chosen setting; `--sentence-map none` leaves out any sentence map the "
        "export carries, which the choice did not measure):", "", "```sh",
        f"crossalign score --encoder {export} --src SRC --hyp MT{lm_flags} --sentence-map none"
        f"{sent_flags}", "```", "", "Made by:", "", "```sh", command, "```", "",
        "Signatures of the rows scored:", "",
        *[f"- {label}: `{sig}`" for label, sig in signatures.items()], ""]
    return "\n".join(lines)


def write_chosen(out: Path, source: Path, selection: Selection, pair: str, dev: str,
                 lm: str | None, command: str, signatures: dict[str, str]) -> None:
    """``out``: a copy of the chosen export ``source`` with its card and ``chosen.json``,
    written beside and renamed into place (a previous output of crossalign is replaced)."""
    with atomic_dir(out, REMAP_FILE, inputs=(source,)) as tmp:
        for name in sorted(files_under(source)):
            if name in (MANIFEST, CARD_FILE, CHOICE_FILE):
                continue
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / name, tmp / name)
        (tmp / CARD_FILE).write_text(card(pair, selection, dev, lm, command, signatures,
                                          str(out)), encoding="utf-8")
        (tmp / CHOICE_FILE).write_text(json.dumps(
            {**selection.as_dict(), "pair": pair, "dev": dev, "lm": lm, "command": command,
             "signatures": signatures}, indent=1, ensure_ascii=False), encoding="utf-8")


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
