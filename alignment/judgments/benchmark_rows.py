"""Scoring a benchmark's judged segments with XMoverScore rows (one export per pair where
the map is pair-specific), the data's own score columns and, optionally, a target-side LM,
then measuring the agreement with people (segment level, and system level on whole system
outputs)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from alignment.errors import InputError
from alignment.terms import TERMS, Batch, Runtime, Setting, standardise

from .agreement import Row, segment_agreement, system_agreement
from .benchmark import Benchmark
from .row_spec import EncoderRow
from .segments import JudgedSegments


@dataclass
class ScoredBenchmark:
    """Rows of segment scores, their signatures, and the agreement metrics."""

    rows: list[Row]
    metrics: dict[str, float]
    system_metrics: dict[str, float] = field(default_factory=dict)


def joint_signature(signatures: set[str]) -> str:
    """One row's signatures over several pairs as one line: where they differ only in their
    ``lang:`` field, that field lists the pairs (``lang:cs-en,de-en``); else all, by ``;``. A
    part signed after the rest (`` ⊕ consensus:…``) that they share follows the joined line."""
    tails = {sig.partition(" ⊕ ")[2] for sig in signatures}
    if len(tails) == 1 and next(iter(tails)):
        tail = next(iter(tails))
        return f"{joint_signature({sig.partition(' ⊕ ')[0] for sig in signatures})} ⊕ {tail}"
    split = [sig.split("|") for sig in sorted(signatures)]
    rest = {tuple(f for f in fields if not f.startswith("lang:")) for fields in split}
    if len(split) < 2 or len(rest) != 1:
        return " ; ".join(sorted(signatures))
    langs = [f[5:] for fields in split for f in fields if f.startswith("lang:")]
    return "|".join([*next(iter(rest)), f"lang:{','.join(langs)}"])


def _added_terms(scorer) -> str:
    """What a row's label adds for the terms of its own score beyond XMoverScore and the
    sentence term (its scoring configuration's LM and registered terms)."""
    return "".join(f" ⊕ {w:g} {TERMS[n].label}" for n, w in scorer.setting.weights
                   if w and n not in ("xmover", "sentence"))


def _with(row: EncoderRow, label: str, weights: dict[str, float], **options) -> EncoderRow:
    """``row`` under another label with ``weights`` over its own (and scorer ``options``, as
    the LM a term reads): a row of the table that ``score`` with those options would give."""
    own = dict(row.setting)
    return EncoderRow(label, row.by_pair, {**own, **options,
                                           "weights": {**own.get("weights", {}), **weights}})


def _alone(row: EncoderRow, label: str, name: str, **options) -> EncoderRow:
    """``row``'s term ``name`` alone (every other term weighs 0)."""
    return _with(row, label, {n: float(n == name) for n in TERMS}, **options)


def _system_sample(n_lines: int, total: int) -> np.ndarray:
    """``n_lines`` line indices spread evenly over a test set of ``total`` lines."""
    return np.unique(np.linspace(0, total - 1, num=min(n_lines, total)).round().astype(int))


def segment_others(benchmark: Benchmark, data: JudgedSegments, system_data: Path | None,
                   log=print) -> list[list[str]]:
    """Every judged segment's other translations of its source: the outputs of the other
    systems of its pair for the same source line (found by its source sentence in the pair's
    system outputs), as given; none where the line is missing (its consensus term is then its
    pair's mean)."""
    from alignment.terms.consensus import outputs_of_others

    if benchmark.systems is None or system_data is None:
        raise InputError(f"{benchmark.name} has no system outputs: the consensus term needs "
                         "other systems' translations of the same sources", parameter="consensus")
    if data.system is None:
        raise InputError("the consensus term needs each segment's system (a 'system' column)",
                         parameter="consensus")
    others: list[list[str]] = [[] for _ in range(len(data))]
    lp = np.asarray(data.lp)
    for pair in data.pairs:
        outputs = benchmark.systems(system_data, pair)
        if outputs is None:
            raise InputError(f"no system outputs for {pair} under {system_data}",
                             parameter="consensus")
        line: dict[str, int] = {}
        for k, sentence in enumerate(outputs.source):
            line.setdefault(sentence, k)
        for i in np.flatnonzero(lp == pair):
            if data.src[i] in line:
                others[i] = outputs_of_others(outputs.outputs, line[data.src[i]], data.system[i])
    missing = sum(not o for o in others)
    if missing:
        log(f"consensus: {missing} of {len(others)} segments have no other system's output of "
            "their source; they get their pair's mean")
    return others


def segment_consensus(benchmark: Benchmark, data: JudgedSegments, system_data: Path | None,
                      log=print, others: list[list[str]] | None = None) -> np.ndarray:
    """Every judged segment's consensus term as given (the term's own values on ``others``,
    default ``segment_others``; NaN where there are none)."""
    if others is None:
        others = segment_others(benchmark, data, system_data, log)
    return TERMS["consensus"].values(Batch(list(data.src), list(data.mt), None, others),
                                     Runtime.of())


@dataclass(frozen=True)
class _TableRow:
    """A row of the table scored by an XMoverScore scorer: its full label, its export and
    setting, and whether it is also measured at the system level."""

    label: str
    row: EncoderRow
    system: bool = False
    consensus: bool = False  # a row ⊕ the consensus (listed after every row without it)


def score_benchmark(benchmark: Benchmark, data: JudgedSegments, rows: list[EncoderRow],
                    options: dict, lm: str | None = None, lm_weight: float | None = None,
                    extra: list[Row] = (), with_baselines: bool = True, resamples: int = 1000,
                    seed: int = 0, system_data: Path | None = None, system_lines: int = 0,
                    log=print, consensus: bool = False) -> ScoredBenchmark:
    """Score every pair of ``data`` with every row (``options``: the XMoverScore settings) and
    measure agreement. ``lm``: each row also with the LM term (at ``lm_weight``, default the
    formula's), as ``score --lm`` adds it, and the LM alone; a row that adds the sentence term
    also gives it alone; ``consensus``: each row also with the consensus term, as ``score
    --consensus`` adds it, and the consensus alone. Every such row is a setting scored by the
    one scorer path: a term shared by rows is computed once a pair. The benchmark's own score
    columns are baseline rows. With ``system_lines`` > 0 and system outputs in ``system_data``,
    each system's score is its mean over that many evenly spaced lines."""
    from alignment.evaluation.metrics import get_metric

    if lm_weight is None:  # the formulation's default weight
        from alignment.xmover.versions import get_version

        lm_weight = get_version(options.get("formula") or "2022").lm_weight
    pairs = data.pairs
    for row in rows:  # every row names an encoder for every pair, before anything loads
        for pair in pairs:
            row.encoder_for(pair)
    others = segment_others(benchmark, data, system_data, log) if consensus else None
    # one runtime for every row: a term shared by rows is computed once, one pair at a time
    given = options.get("runtime") or Runtime.of()
    runtime = replace(given, cache=given.cache.remembering())
    options = {**options, "runtime": runtime}
    scorers: dict[tuple[str, str], object] = {}

    def scorer_for(row: EncoderRow, pair: str):
        """The row's scorer of ``pair`` (its export, the common options, its own setting)."""
        encoder = row.encoder_for(pair)
        key = (encoder, pair, row.key())
        if key not in scorers:
            scorers[key] = get_metric("xmoverscore").build(
                encoder, languages=tuple(pair.split("-")), **row.options(options))
        return scorers[key]

    def weighs(row: EncoderRow, name: str) -> bool:
        return any(scorer_for(row, p).setting.weight(name) for p in pairs)

    table = []
    for row in rows:
        label = row.label + (" ⊕ sentence" if weighs(row, "sentence") else "") \
            + _added_terms(scorer_for(row, pairs[0]))
        table.append(_TableRow(label, row, system=True))
    if lm:
        for base in list(table):
            if weighs(base.row, "lm"):
                log(f"{base.row.label}: no ⊕ LM row (its setting weighs an LM already)")
            else:
                table.append(_TableRow(f"{base.label} ⊕ LM", _with(
                    base.row, base.label, {"lm": lm_weight}, lm=lm), system=True))
        if rows:
            table.append(_TableRow("LM alone", _alone(rows[0], "LM alone", "lm", lm=lm)))
    sentence_row = next((r for r in rows if all(
        scorer_for(r, p).setting.weight("sentence") for p in pairs)), None)
    if sentence_row is not None:
        table.append(_TableRow("sentence alone", _alone(sentence_row, "sentence alone",
                                                        "sentence")))
    with_consensus = Setting.of(consensus=1.0)
    if consensus:
        table += [_TableRow(with_consensus.label(t.label), _with(
            t.row, t.label, {"consensus": 1.0}), consensus=True) for t in list(table)]
    for t in table:  # every setting's scorer built, and refused, before anything is scored
        for pair in pairs:
            scorer_for(t.row, pair)
    lp = np.asarray(data.lp)
    scores = {t.label: np.zeros(len(data)) for t in table}
    sigs: dict[str, set[str]] = {t.label: set() for t in table}
    agreement = np.full(len(data), np.nan) if consensus else None
    for pair in pairs:
        runtime.cache.forget()
        mask = np.flatnonzero(lp == pair)
        src, mt = [data.src[i] for i in mask], [data.mt[i] for i in mask]
        given_others = None if others is None else [others[i] for i in mask]
        for t in table:
            log(f"scoring {pair} with {t.label} ({len(mask)} segments)")
            result = scorer_for(t.row, pair).score(src, mt, others=given_others)
            scores[t.label][mask] = result.final
            sigs[t.label].add(result.signature)
            if agreement is not None and "consensus" in result.values:
                agreement[mask] = result.values["consensus"]
    scored = [Row(t.label, scores[t.label], joint_signature(sigs[t.label])) for t in table]
    plain = [r for r, t in zip(scored, table) if not t.consensus] + list(extra)
    if consensus:  # the rows scored elsewhere (score files, other metrics) ⊕ the same term
        from alignment.terms.consensus import COMBINE_SIGNATURE, SIGNATURE

        if not rows:
            agreement = segment_consensus(benchmark, data, system_data, others=others)
        plain += [r for r, t in zip(scored, table) if t.consensus] + [
            Row(with_consensus.label(r.label), with_consensus.combine(
                {"xmover": r.scores, "consensus": agreement}, lp),
                f"{r.signature} ⊕ {SIGNATURE}|{COMBINE_SIGNATURE}") for r in extra]
        plain.append(Row("consensus alone", standardise(agreement, lp), SIGNATURE))
    scored = plain
    if with_baselines:
        scored += [Row(label, data.baselines[col], f"the data's '{col}' column")
                   for col, label in benchmark.baselines.items() if col in data.baselines]
    if not scored:
        raise InputError("nothing to evaluate: give --encoder EXPORT… or --scores FILE",
                         parameter="encoder")
    metrics = segment_agreement(data, scored, resamples, seed)
    system_metrics: dict[str, float] = {}
    if system_lines > 0 and benchmark.systems is not None and system_data is not None:
        for pair in pairs:
            outputs = benchmark.systems(system_data, pair)
            if outputs is None:
                continue
            runtime.cache.forget()
            keep = _system_sample(system_lines, len(outputs.source))
            src = [outputs.source[i] for i in keep]
            per_row: dict[str, dict[str, float]] = {t.label: {} for t in table if t.system}
            for name, hyp_all in outputs.outputs.items():
                hyp = [hyp_all[i] for i in keep]
                for t in (t for t in table if t.system):
                    log(f"system level {pair}: {name} with {t.label} ({len(keep)} lines)")
                    per_row[t.label][name] = float(scorer_for(t.row, pair).score(
                        src, hyp).final.mean())
            for label, values in per_row.items():
                for k, v in system_agreement(values, outputs.human).items():
                    system_metrics[f"{label}/{pair}/{k}"] = v
    return ScoredBenchmark(scored, metrics, system_metrics)
