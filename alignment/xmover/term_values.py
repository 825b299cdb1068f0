"""The one path by which a score's term values are computed: every term a setting weighs, on one
batch, each computed once for its identity and inputs in the runtime's cache — so the rows of a
table (``evaluate``, ``choose``) that share a term on the same text share its values — then
combined with the setting over every system of a call at once."""
from __future__ import annotations

import hashlib
import time

import numpy as np

from alignment.errors import InputError
from alignment.terms import TERMS, Batch, Runtime, Setting
from alignment.terms.term import ScorerTerm


def term_identity(scorer, name: str) -> str:
    """What a term computes on this scorer, whatever its weight and wherever the weight came
    from: a term of what the scorer loaded, the scorer's signature with that term alone (no
    ``over:``); a term of the text alone, its own identity and the precision it follows."""
    term = TERMS[name]
    if not isinstance(term, ScorerTerm):
        precision = scorer.precision if term.follows_precision() else "fp32"
        return f"{name}:{term.identity()}@{precision}"
    alone = Setting(tuple((n, 1.0 if n == name else 0.0) for n in TERMS))
    fields = [f for f in scorer.signed_as(alone).split("|") if not f.startswith("over:")]
    sides = (scorer.mapping_both_sides, (scorer.export_meta or {}).get("mapped_side"))
    return f"{name}:{'|'.join(fields)}|sides:{sides}"


def batch_key(batch: Batch, others: bool) -> str:
    """A digest of everything a term reads of ``batch`` (``others``: a term that reads the
    other systems' outputs; the rest do not, so rows with and without it share their values)."""
    h = hashlib.sha256(repr(batch.languages).encode())
    for part in (batch.sources, batch.outputs):
        h.update(b"\1")
        for s in part:
            h.update(s.encode("utf-8", "surrogatepass") + b"\0")
    for outs in (batch.others or ()) if others else ():
        h.update(b"\2" + "\0".join(outs).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def term_values(scorer, batch: Batch, names: list[str], runtime: Runtime
                ) -> dict[str, np.ndarray]:
    """Each of ``names``' values on ``batch`` (a term bound to ``scorer`` first). A term
    computed before on the same batch with the same identity in this runtime's cache (its
    memory: the rows of a table) is not computed again; the seconds of a term that lays down
    no stage of its own go to ``term NAME`` (its own name for the built-in ones)."""
    out: dict[str, np.ndarray] = {}
    for name in names:
        term = TERMS[name].bind(scorer)
        before, clock = sum(runtime.seconds.values()), time.perf_counter()

        def compute(term=term):
            seen = dict(runtime.truncated)
            values = np.asarray(term.values(batch, runtime), dtype=np.float64)
            return values, {k: v for k, v in runtime.truncated.items() if seen.get(k) != v}

        values, cut = runtime.cache.term_values(
            lambda: (term_identity(scorer, name), batch_key(batch, term.reads_others)), compute)
        for side, lines in cut.items():
            runtime.truncated.setdefault(side, lines)
        out[name] = values
        if not sum(runtime.seconds.values()) - before:  # no stage laid down by the term itself
            stage = name if term.own_option else f"term {name}"
            runtime.seconds[stage] = time.perf_counter() - clock
    return out


def combine_systems(setting: Setting, values: list[dict[str, np.ndarray]],
                    calibration=None) -> list[np.ndarray]:
    """The setting's sum for each system of one call, over every system's segments together:
    a term in standard units is standardised over all of them, so systems stay comparable (a
    raw sum is the same either way); ``calibration`` (``alignment.xmover.calibration``) maps
    the sums to people's scale."""
    sizes = [len(next(iter(v.values()))) if v else 0 for v in values]
    joint = {n: np.concatenate([v[n] for v in values]) for n in setting.active()}
    summed = setting.combine(joint)
    summed = summed if calibration is None else calibration.apply(summed)
    finals = np.split(summed, np.cumsum(sizes)[:-1])
    for final in finals:
        if not np.isfinite(final).all():
            bad = int(np.flatnonzero(~np.isfinite(final))[0]) + 1
            raise InputError(f"pair {bad} got a non-finite score: the mapping or encoder "
                             "produces values too large for float arithmetic", parameter="mapping")
    return finals


def others_as_read(scorer, sources: list[str], given: list[list[str]] | None,
                   systems: list[list[str]]) -> list[list[str]]:
    """Each source's other translations (what the consensus term reads) as ``scorer`` reads
    them: those ``given`` (a judged segment's other systems), else the other ``systems``'
    outputs of the same line (already read)."""
    if given is None:
        return [[o[i] for o in systems] for i in range(len(sources))]
    return [scorer.outputs_as_read([s] * len(o), list(o)) for s, o in zip(sources, given)]
