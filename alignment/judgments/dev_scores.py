"""The scores ``choose`` chooses among: one scorer per candidate and pair computes every term
once — its XMoverScore, its sentence-level term (through the sentence map its export carries,
as ``score`` adds it) and, on the first candidate (they do not depend on the map), the LM and
each registered term searched — on the dev outputs as the scorers read them."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from alignment.terms import TERMS, Runtime, Setting

from .benchmark import Benchmark
from .benchmark_rows import joint_signature
from .row_spec import EncoderRow
from .segments import JudgedSegments


@dataclass
class DevScores:
    """Every candidate's XMoverScore, the LM term, the sentence-level term and any registered
    term on dev; the scorer of each (candidate, pair)."""

    rows: dict[str, np.ndarray]
    lm: np.ndarray | None
    sentence: dict[str, np.ndarray] | None  # each row's own sentence-level term
    signatures: dict[str, str]
    terms: dict[str, np.ndarray] = field(default_factory=dict)
    mapped: frozenset[str] = frozenset()  # the rows whose sentence term went through a map
    scorers: dict[tuple[str, str], object] = field(default_factory=dict, repr=False)


def score_dev(benchmark: Benchmark, data: JudgedSegments, rows: list[EncoderRow], options: dict,
              lm: str | None, with_sentence: bool, log=print, terms: tuple[str, ...] = ()
              ) -> DevScores:
    """The scores ``choose_on_dev`` needs, from one scorer per candidate and pair (``options``:
    the scorer's parameters; the candidates' own scoring configurations are not read: the
    weights are what is chosen)."""
    from alignment.evaluation.metrics import get_metric

    for row in rows:  # every row names an encoder for every pair, before anything loads
        for pair in data.pairs:
            row.encoder_for(pair)
    n, lp = len(data), np.asarray(data.lp)
    xm = {r.label: np.zeros(n) for r in rows}
    sentence = {r.label: np.zeros(n) for r in rows} if with_sentence else None
    shared = {name: np.zeros(n) for name in (["lm"] if lm else []) + list(terms)}
    signed: dict[str, set[str]] = {r.label: set() for r in rows}
    described: dict[str, set[str]] = {r.label: set() for r in rows}
    mapped, scorers = set(), {}
    # one runtime for every candidate: those on one encoder share its encodings, a pair at a time
    given = options.get("runtime") or Runtime.of()
    runtime = replace(given, cache=given.cache.remembering())
    options = {**options, "runtime": runtime}
    for pair in data.pairs:
        runtime.cache.forget()
        mask = np.flatnonzero(lp == pair)
        src, mt = [data.src[i] for i in mask], [data.mt[i] for i in mask]
        for k, row in enumerate(rows):
            log(f"scoring {pair} with {row.label} ({len(mask)} segments)")
            scorer = get_metric("xmoverscore").build(
                row.encoder_for(pair), languages=tuple(pair.split("-")), **{
                    **options, "setting": "none", "lm": lm if k == 0 else None,
                    "weights": {"sentence": 1.0 if with_sentence else 0.0, "lm": 1.0,
                                **({name: 1.0 for name in terms} if k == 0 else {})}})
            scorers[(row.label, pair)] = scorer
            values = scorer.score(src, mt).values
            xm[row.label][mask] = values["xmover"]
            signed[row.label].add(scorer.signed_as(Setting.of()))  # XMoverScore alone
            if sentence is not None:
                sentence[row.label][mask] = values["sentence"]
                described[row.label].add(scorer.sentence.describe())
                if scorer.sentence.sentence_map is not None:
                    mapped.add(row.label)
            if k == 0:
                for name in shared:
                    shared[name][mask] = values[name]
    signatures = {r.label: joint_signature(signed[r.label]) for r in rows}
    if lm:
        signatures["LM"] = f"lm:{scorers[(rows[0].label, data.pairs[0])].lm.ident}"
    if sentence is not None:
        signatures.update({f"sentence ({label})": "sentence:" + " ; ".join(sorted(d))
                           for label, d in described.items()})
    signatures.update({name: f"term:{TERMS[name].ident or name}" for name in terms})
    return DevScores(xm, shared.pop("lm", None), sentence, signatures,
                     {name: shared[name] for name in terms}, frozenset(mapped), scorers)
