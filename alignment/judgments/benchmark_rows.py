"""Scoring a benchmark's judged segments with XMoverScore rows (one export per pair where
the map is pair-specific), the data's own score columns and, optionally, a target-side LM,
then measuring the agreement with people (segment level, and system level on whole system
outputs)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from alignment.errors import InputError
from alignment.terms import TERMS, Runtime, Setting

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
    ``lang:`` field, that field lists the pairs (``lang:cs-en,de-en``); else all, by ``;``."""
    split = [sig.split("|") for sig in sorted(signatures)]
    rest = {tuple(f for f in fields if not f.startswith("lang:")) for fields in split}
    if len(split) < 2 or len(rest) != 1:
        return " ; ".join(sorted(signatures))
    langs = [f[5:] for fields in split for f in fields if f.startswith("lang:")]
    return "|".join([*next(iter(rest)), f"lang:{','.join(langs)}"])


def _lm_signature(scorer, lm, coef: float) -> str:
    """The signature ``crossalign score --lm LM --lm-weight COEF`` writes for this scorer."""
    own = scorer.lm, dict(scorer.weights)
    scorer.lm, scorer.weights = lm, {**own[1], "lm": coef}
    try:
        return scorer.signature
    finally:
        scorer.lm, scorer.weights = own  # the row's own LM, where its setting has one


def _added_terms(scorer) -> str:
    """What a row's label adds for the terms of its own score beyond XMoverScore and the
    sentence term (its scoring configuration's LM and registered terms)."""
    return "".join(f" ⊕ {w:g} {TERMS[n].label}" for n, w in scorer.setting.weights
                   if w and n not in ("xmover", "sentence"))


def _system_sample(n_lines: int, total: int) -> np.ndarray:
    """``n_lines`` line indices spread evenly over a test set of ``total`` lines."""
    return np.unique(np.linspace(0, total - 1, num=min(n_lines, total)).round().astype(int))


def segment_consensus(benchmark: Benchmark, data: JudgedSegments, system_data: Path | None,
                      log=print, read=None) -> np.ndarray:
    """Every judged segment's consensus term: its mean chrF against the outputs of the other
    systems for the same source line (found by its source sentence in the pair's system
    outputs); NaN where the line or any other system is missing. ``read(pair, sources,
    outputs)``: the outputs as the scorers read them (default: as given)."""
    from alignment.terms.consensus import consensus_scores, outputs_of_others

    if benchmark.systems is None or system_data is None:
        raise InputError(f"{benchmark.name} has no system outputs: the consensus term needs "
                         "other systems' translations of the same sources", parameter="consensus")
    if data.system is None:
        raise InputError("the consensus term needs each segment's system (a 'system' column)",
                         parameter="consensus")
    lp = np.asarray(data.lp)
    values = np.full(len(data), np.nan)
    for pair in data.pairs:
        outputs = benchmark.systems(system_data, pair)
        if outputs is None:
            raise InputError(f"no system outputs for {pair} under {system_data}",
                             parameter="consensus")
        line: dict[str, int] = {}
        for k, sentence in enumerate(outputs.source):
            line.setdefault(sentence, k)
        mask = np.flatnonzero(lp == pair)
        as_read = (lambda s, h: h) if read is None else (lambda s, h: read(pair, s, h))
        systems = {name: as_read(outputs.source, hyp) for name, hyp in outputs.outputs.items()}
        others = [[] if line.get(data.src[i]) is None else
                  outputs_of_others(systems, line[data.src[i]], data.system[i]) for i in mask]
        values[mask] = consensus_scores(as_read([data.src[i] for i in mask],
                                                [data.mt[i] for i in mask]), others)
    missing = int(np.isnan(values).sum())
    if missing:
        log(f"consensus: {missing} of {len(values)} segments have no other system's output of "
            "their source; they get their pair's mean")
    return values


def score_benchmark(benchmark: Benchmark, data: JudgedSegments, rows: list[EncoderRow],
                    options: dict, lm: str | None = None, lm_weight: float | None = None,
                    extra: list[Row] = (), with_baselines: bool = True, resamples: int = 1000,
                    seed: int = 0, system_data: Path | None = None, system_lines: int = 0,
                    log=print, consensus: bool = False) -> ScoredBenchmark:
    """Score every pair of ``data`` with every row (``options``: the XMoverScore settings),
    add ``⊕ LM`` rows and the LM alone when ``lm`` is given, the benchmark's own score columns
    as baseline rows, and measure agreement. With ``system_lines`` > 0 and system outputs in
    ``system_data``, each system's score is its mean over that many evenly spaced lines. With
    ``consensus``, every row also gets a ``⊕ consensus`` row (its standardised sum with the
    segment's chrF against the other systems' outputs of its source; ``consensus``), and the
    consensus term is a row of its own."""
    from alignment.evaluation.metrics import get_metric
    from alignment.xmover.lm import LanguageModelScorer

    if lm_weight is None:  # the formulation's default weight
        from alignment.xmover.versions import get_version

        lm_weight = get_version(options.get("formula") or "2022").lm_weight
    pairs = data.pairs
    with_lm = Setting.of(lm=lm_weight)  # a row's scores (its own setting) ⊕ the LM term
    for row in rows:  # every row names an encoder for every pair, before anything loads
        for pair in pairs:
            row.encoder_for(pair)
    # one runtime for every row: rows on one encoder share its encodings, one pair at a time
    given = options.get("runtime") or Runtime.of()
    runtime = replace(given, cache=given.cache.remembering())
    options = {**options, "runtime": runtime}
    lm_scorer = LanguageModelScorer(lm, device=runtime.device,
                                    precision=runtime.precision or "fp32") if lm else None
    scorers: dict[tuple[str, str], object] = {}

    def scorer_for(row: EncoderRow, pair: str):
        """The row's scorer of ``pair`` (its export, the common options, its own setting)."""
        encoder = row.encoder_for(pair)
        key = (encoder, pair, row.key())
        if key not in scorers:
            langs = tuple(pair.split("-"))
            scorers[key] = get_metric("xmoverscore").build(encoder, languages=langs,
                                                           **row.options(options))
        return scorers[key]

    def first_reading(pair: str, sources: list[str], outputs: list[str]) -> list[str]:
        """The outputs as the first row's scorer reads them (the LM and consensus rows)."""
        return scorer_for(rows[0], pair).outputs_as_read(sources, outputs)

    agreement = segment_consensus(benchmark, data, system_data, log,
                                  first_reading if rows else None) if consensus else None
    lp = np.asarray(data.lp)
    xm = {r.label: np.zeros(len(data)) for r in rows}
    sigs: dict[str, set[str]] = {r.label: set() for r in rows}
    lm_sigs: dict[str, set[str]] = {r.label: set() for r in rows}
    fluency = np.zeros(len(data))
    sentence = np.full(len(data), np.nan)
    with_term: set[str] = set()  # rows that add the sentence-level term
    term_row, term_sigs = None, set()
    for pair in pairs:
        runtime.cache.forget()
        mask = np.flatnonzero(lp == pair)
        src = [data.src[i] for i in mask]
        mt = [data.mt[i] for i in mask]
        done: dict[int, object] = {}  # rows naming one export share its scores
        for row in rows:
            log(f"scoring {pair} with {row.label} ({len(mask)} segments)")
            scorer = scorer_for(row, pair)
            if id(scorer) not in done:
                done[id(scorer)] = scorer.score(src, mt)
            result = done[id(scorer)]
            xm[row.label][mask] = result.final  # with the sentence-level term, where added
            sigs[row.label].add(result.signature)
            if result.sentence is not None:
                with_term.add(row.label)
                if term_row in (None, row.label):  # the first row that adds the term
                    term_row, sentence[mask] = row.label, result.sentence
                    term_sigs.add(f"sentence:{scorer.sentence.describe()}")
            if lm_scorer is not None and scorer.lm is None:  # an LM of its own: no ⊕ LM row
                lm_sigs[row.label].add(_lm_signature(scorer, lm_scorer, lm_weight))
        if lm_scorer is not None:  # the outputs as the first row's scorer read them
            fluency[mask] = runtime.cache.lm_scores(lm_scorer, first_reading(pair, src, mt))
    suffix = {r.label: (" ⊕ sentence" if r.label in with_term else "") + _added_terms(
        scorer_for(r, pairs[0])) for r in rows}
    scored = [Row(r.label + suffix[r.label], xm[r.label], joint_signature(sigs[r.label]))
              for r in rows]
    if lm_scorer is not None:
        scored += [Row(f"{r.label}{suffix[r.label]} ⊕ LM", with_lm.combine(
                           {"xmover": xm[r.label], "lm": fluency}),
                       joint_signature(lm_sigs[r.label])) for r in rows if lm_sigs[r.label]]
        for r in (r for r in rows if not lm_sigs[r.label]):
            log(f"{r.label}: no ⊕ LM row (its setting weighs an LM already)")
        scored.append(Row("LM alone", fluency, f"lm:{lm_scorer.ident}"))
    if term_row is not None and not np.isnan(sentence).any():
        scored.append(Row("sentence alone", sentence, " ; ".join(sorted(term_sigs))))
    scored += list(extra)
    if agreement is not None:
        from alignment.terms.consensus import COMBINE_SIGNATURE, SIGNATURE
        from alignment.terms import standardise

        with_it = Setting.of(consensus=1.0)
        scored += [Row(with_it.label(r.label), with_it.combine(
            {"xmover": r.scores, "consensus": agreement}, lp),
            f"{r.signature} ⊕ {SIGNATURE}|{COMBINE_SIGNATURE}") for r in scored]
        scored.append(Row("consensus alone", standardise(agreement, lp), SIGNATURE))
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
            per_row: dict[str, dict[str, float]] = {r.label: {} for r in rows}
            per_lm: dict[str, dict[str, float]] = {r.label: {} for r in rows}
            for name, hyp_all in outputs.outputs.items():
                hyp = [hyp_all[i] for i in keep]
                flu = runtime.cache.lm_scores(lm_scorer, first_reading(pair, src, hyp)) \
                    if lm_scorer else None
                for row in rows:
                    log(f"system level {pair}: {name} with {row.label} ({len(keep)} lines)")
                    res = scorer_for(row, pair).score(src, hyp)
                    per_row[row.label][name] = float(res.final.mean())
                    if flu is not None and lm_sigs[row.label]:
                        per_lm[row.label][name] = float(with_lm.combine(
                            {"xmover": res.final, "lm": flu}).mean())
            for label, values in per_row.items():
                for k, v in system_agreement(values, outputs.human).items():
                    system_metrics[f"{label}{suffix[label]}/{pair}/{k}"] = v
            if lm_scorer is not None:
                for label, values in ((k, v) for k, v in per_lm.items() if v):
                    for k, v in system_agreement(values, outputs.human).items():
                        system_metrics[f"{label}{suffix[label]} ⊕ LM/{pair}/{k}"] = v
    return ScoredBenchmark(scored, metrics, system_metrics)
