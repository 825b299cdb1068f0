"""The XMoverScore scorer: versioned, exact, batched, and signed."""
from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import numpy as np

from alignment.encoding.encoder import Encoder, EncoderSpec, encoder_depth, truncation_message
from alignment.encoding.precision import asked_precision, automatic_precision, precision_tag
from alignment.errors import InputError
from alignment.mappings import Mapping
from alignment.signature import EncoderSignature, XMoverSignature
from alignment.export.named import resolve_export
from alignment.export.xmover_files import given_mapping
from .idf import IdfWeights
from .lm import LanguageModelScorer
from .sentence_vectors import SentenceSimilarity
from .sentence_map import resolve_sentence_map
from .ngrams import map_rows, ngram_vectors, select_tokens
from .reuse import encoder_producer
from .configuration import SCORING_FILE, ScoringConfig, effective
from .calibration import kept_calibration
from alignment.terms import TERMS, Batch, Runtime, Setting
from .score_result import ScoreResult, has_text, truncated_lines, validate_pairs  # noqa: F401
from .written import check_reading, describe as describe_reading, read_outputs
from .versions import Version, get_version
from .term_values import combine_systems, others_as_read, term_values


class XMoverScorer:
    """Reference-free score of hypotheses against their sources. ``encoder``: a HF model (name
    or path) or a crossalign export (its encoder, layer and mapping). ``mapping``: a public
    ``.BAM``/``.GBDD`` file or a ``Mapping``, on the source side as the public code applies it
    (``mapping_both_sides``: the hypothesis too; ``public_gbdd``: a ``.GBDD`` the public way).
    ``layer``: the export's, else the version's, or the encoder's last where it is shallower
    (``notes`` says so). ``languages`` (source, target) are signed; an export's own is used.

    The scoring setting: an export's ``scoring.json`` (``alignment.xmover.configuration``) by
    default (``setting="none"``: not read; a ``ScoringConfig``: that one); each of ``formula``
    (``2020``, ``2022``; ``version=`` its old name), ``read`` (``given``/``written``), ``lm`` and
    ``weights`` (a term's name: its weight, ``alignment.terms``) given overrides it, and the
    signature's ``over:`` names it. Else: the formula's LM weight, the ``sentence_map``'s own
    weight (default the export's map; ``"none"``: none), XMoverScore at 1. The setting's
    calibration, where it keeps one and nothing overrides it, maps the scores to people's scale.

    How it runs is apart: ``runtime`` (``alignment.terms.Runtime``: device, precision — auto,
    ``fp32``, ``bf16``, ``int8`` —, batch size, processes, a ``reuse`` folder)."""

    def __init__(self, encoder: str, formula: str | None = None, layer: int | None = None,
                 ngram: int = 2, mapping: str | Path | Mapping | None = None,
                 idf_src: IdfWeights | None = None, idf_hyp: IdfWeights | None = None,
                 lm: str | None = None, weights: dict[str, float] | None = None,
                 mapping_both_sides: bool = False, public_gbdd: bool = False,
                 languages: tuple[str, str] | None = None, version: str | None = None,
                 sentence_layer: int | None = None, sentence_map=None,
                 read: str | None = None, setting: str | ScoringConfig = "export",
                 runtime: Runtime | None = None) -> None:
        if ngram < 1:
            raise InputError("n-gram size must be >= 1", parameter="ngram")
        if not isinstance(setting, ScoringConfig) and setting not in ("export", "none"):
            raise InputError(f"must be export or none, got {setting!r}", parameter="setting")
        self.runtime = runtime = runtime or Runtime.of()
        device, batch_size = runtime.device, runtime.batch_size
        encoder = resolve_export(encoder)  # a shipped or cached export's short name
        self.config = setting if isinstance(setting, ScoringConfig) else ScoringConfig.load(
            encoder) if setting == "export" and is_export(encoder) else None
        asked = asked_precision(runtime.precision)
        chosen, over = effective(self.config, {
            "formula": version or formula, "read": read, "precision": asked, "lm": lm,
            "weights": weights}, {"formula": "2022", "read": "given", "precision": "fp32"})
        self.overridden = tuple(over)
        self.calibration = kept_calibration(self.config, self.overridden, notes := [])
        self.spec: Version = get_version(chosen["formula"])
        self.version, self.ngram = self.spec.name, ngram
        self.read, precision = check_reading(chosen["read"]), chosen["precision"]
        if asked is None and precision == "fp32":  # a card's fp32 runs as this device allows
            precision = automatic_precision(device)
        lm, given = chosen["lm"], chosen["weights"]
        Setting.of(**given)  # every name a term, every weight finite and >= 0
        self.idf_src, self.idf_hyp = idf_src, idf_hyp
        # a worker costs a process start and a POT import; on 2 cores solve in-process
        cores = os.cpu_count() or 1
        self.n_jobs = runtime.jobs or (cores if cores > 2 else 1)
        self.export_mapping, self.export_meta, self.text = None, None, None
        self.notes: list[str] = notes + (self.config.changed_identities() if self.config else [])
        if is_export(encoder):
            from alignment.export.remapped import load_remapped

            remapped = load_remapped(encoder, device=device, share=runtime.cache.weights,
                                     precision=precision, dtype="fp32")
            depth = remapped.encoder.config.num_hidden_layers
            if layer is not None and not -(depth + 1) <= layer <= depth:
                raise InputError(f"layer {layer} out of range for the export's encoder, which "
                                 f"has {depth} layers", parameter="layer")
            if layer is not None and layer % (depth + 1) != remapped.encoder.layer:
                raise InputError(f"the export was fitted at layer {remapped.encoder.layer}; "
                                 f"layer {layer} would not match it", parameter="layer")
            self.encoder = remapped.encoder
            self.export_mapping, self.export_meta = remapped.mapping, remapped.meta
            self.text = remapped.text  # TEXT normalisation of the sources, as at training time
            own = (self.export_meta.get("src_lang"), self.export_meta.get("tgt_lang"))
            if languages is not None and None not in own and tuple(languages) != own:
                raise InputError(f"the export maps {own[0]}→{own[1]}, not "
                                 f"{languages[0]}→{languages[1]}", parameter="languages")
            languages = own if None not in own else languages
        else:
            if layer is None:
                layer, depth = self.spec.layer, encoder_depth(encoder)
                if layer > depth:
                    self.notes.append(f"layer {layer} (the {self.spec.name} default) is beyond "
                                      f"the encoder's {depth} layers: using its last, {depth}")
                    layer = depth
            self.encoder = Encoder(EncoderSpec(encoder, layer), device=device,
                                   share=runtime.cache.weights, precision=precision, dtype="fp32")
        self.languages = tuple(languages) if languages else None
        if mapping is not None and self.export_mapping is not None:
            raise InputError("give a mapping file or an export, not both", parameter="mapping")
        self.mapping, self.mapping_label = given_mapping(mapping, self.encoder.dim, public_gbdd,
                                                         mapping_both_sides)
        self.mapping_both_sides = mapping_both_sides
        self.lm = LanguageModelScorer(lm, device=device, precision=precision,
                                      pool=runtime.cache.weights) if lm else None
        self.sentence_map = smap = resolve_sentence_map(
            encoder if self.export_meta is not None else None, sentence_map)
        # each term's weight: the one given or configured, else the term's default for this
        # scorer (the LM's is the formula's)
        self.weights = {n: w for n, t in TERMS.items()
                        if (w := given[n] if n in given else t.default_weight(self)) or n in given}
        if sentence_layer is None:
            sentence_layer = smap.student["layer"] if smap is not None else -1
        self.sentence = SentenceSimilarity(self.encoder, sentence_layer, batch_size=batch_size) \
            if self.weights.get("sentence") else None
        if self.sentence is not None and smap is not None:
            self.sentence.with_map(smap, self.languages, device)
        if not self.setting.active():
            filed = "xmover" not in (weights or {}) and self.config is not None  # not an option
            raise InputError("with XMoverScore's weight 0 the score needs another term" + (
                ", and the configuration weighs none" if filed else " (a sentence map or "
                "--sentence-weight, --lm, --term)"), **({"path": Path(encoder) / SCORING_FILE}
                                                      if filed else {"parameter": "xmover-weight"}))
        self.sentencepiece = self.encoder.tokenizer.convert_tokens_to_ids("▁") in self.encoder.bare_markers
        self.precision = precision

    @property
    def setting(self) -> Setting:
        """The weights this scorer adds its terms with (a term it cannot compute weighs 0)."""
        return Setting.of(**{n: w if TERMS[n].available(self) else 0.0
                             for n, w in self.weights.items()})

    @property
    def signature(self) -> str:
        return self.signed_as(self.setting)

    def signed_as(self, setting: Setting) -> str:
        """This scorer's signature with its terms weighed as ``setting`` says (one pass of
        terms signed for each point of a grid)."""
        ident, w = self.encoder.identity(), setting.weight
        # the map as applied: a map and its float32 .BAM file get one signature
        mapping = "none"
        if self.mapping is not None:
            mapping = f"{self.mapping_label}#{self.mapping.applied_fingerprint()}"
        elif self.export_mapping is not None:
            mapping = (f"{self.export_mapping.describe()}#"
                       f"{self.export_mapping.applied_fingerprint()}")
        idf = "none" if self.idf_src is None else f"{self.idf_src.fingerprint}/" \
            f"{self.idf_hyp.fingerprint if self.idf_hyp else 'none'}"
        terms: dict[str, object] = {}  # every term's own fields, or its part of ``terms:``
        parts: dict[str, list[str]] = {"terms": [], "after": []}  # ``after``: `` ⊕ …`` at the end
        for name, term in TERMS.items():
            got = term.bind(self).signature_fields(w(name) if term.available(self) else 0.0,
                                                   self.precision)
            for key, found in parts.items():
                found += [got.pop(key)] if got.get(key) else []
            terms.update(got)
        terms["terms"] = "+".join(parts["terms"]) or None
        signed = str(XMoverSignature(
            self.spec.tag, EncoderSignature.of(ident), bool(ident.subwords), mapping, self.ngram,
            idf, text=self.text.describe() if self.text else None,
            languages="-".join(self.languages) if self.languages else None,
            precision=precision_tag(self.precision), read=describe_reading(self.read),
            over=",".join(self.overridden) or None, **terms, cal=self.calibration.tag() if
            self.calibration and setting == self.setting else None))
        return signed + "".join(f" ⊕ {a}" for a in parts["after"])

    def _prepare(self, encoded, idf: IdfWeights | None, transform, progress: bool = False
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
        keeps = [select_tokens(tokens, special, self.spec, self.sentencepiece)
                 for tokens, special, _ in encoded]
        kept = [vecs[keep] for (_, _, vecs), keep in zip(encoded, keeps)]
        if transform is not None:
            kept = map_rows(kept, transform, progress)
        out = []
        for (tokens, _, _), keep, v in zip(encoded, keeps, kept):
            w = np.ones(len(keep)) if idf is None else \
                np.array([idf(tokens[i]) for i in keep], dtype=np.float64)
            if not np.any(w > 0):
                w = np.ones(len(keep))
            out.append(ngram_vectors(v, w, self.ngram))
        return out

    def _source_transform(self):
        mapping = self.mapping if self.mapping is not None else self.export_mapping
        return None if mapping is None else (lambda v: mapping.map_array(v, "src"))

    def _target_transform(self):
        if self.mapping is not None and self.mapping_both_sides:
            return lambda v: self.mapping.map_array(v, "tgt")
        if self.export_mapping is not None and self.export_meta.get("mapped_side") == "both":
            return lambda v: self.export_mapping.map_array(v, "tgt")
        return None

    def score(self, sources: list[str], hypotheses: list[str], progress: bool = False,
              warn: bool = True, others: list[list[str]] | None = None) -> ScoreResult:
        """One score per pair, whatever the batch size or order (an empty hypothesis scored as
        the formula defines it, and counted); ``progress``: bars on stderr; ``warn``: warn of
        over-long sentences; ``others``: each source's other translations (the consensus)."""
        return self.score_systems(sources, [hypotheses], progress, warn, others)[0]

    def score_systems(self, sources: list[str], systems: list[list[str]],
                      progress: bool = False, warn: bool = True,
                      others: list[list[str]] | None = None) -> list[ScoreResult]:
        """``score`` for several systems of the same sources (their side computed once; a
        term in standard units standardised over all of them; the consensus term of each
        system against the others, unless ``others`` gives one system's)."""
        if isinstance(systems, (str, bytes)) or not systems:
            raise InputError("give a list of systems, each a list of hypotheses",
                             parameter="systems")
        for hypotheses in systems:
            validate_pairs(sources, hypotheses)
        runtime, setting = self.call_runtime(progress), self.setting
        read = [self.outputs_as_read(sources, hypotheses) for hypotheses in systems]
        batches = [Batch(list(sources), outputs, self.languages, others_as_read(
            self, sources, others, read[:k] + read[k + 1:]) if "consensus" in setting.active()
            else None) for k, outputs in enumerate(read)]
        parts = [self._term_values(batch, setting, runtime) for batch in batches]
        finals = combine_systems(setting, [values for values, _, _ in parts], self.calibration)
        results = [ScoreResult(final, self.signature, values, seconds,
                               sum(not has_text(h) for h in batch.outputs), cut, batch.outputs)
                   for final, (values, seconds, cut), batch in zip(finals, parts, batches)]
        for where, lines in truncated_lines(results).items() if warn else ():
            warnings.warn(truncation_message(lines, self.encoder.max_length, where), stacklevel=3)
        return results

    def call_runtime(self, progress: bool = False) -> Runtime:  # one call's, made from the scorer's
        return self.runtime.call(str(self.encoder.device), self.precision, self.n_jobs, progress)

    def outputs_as_read(self, sources: list[str], hypotheses: list[str]) -> list[str]:
        """The MT outputs as this scorer reads them (``read``), for every term and consumer."""
        return read_outputs(self.read, sources, hypotheses,
                            self.languages[1] if self.languages else None)

    def _term_values(self, batch: Batch, setting: Setting, runtime: Runtime):
        """Every weighed term's values on one system's outputs (``term_values``; its source
        side once for all systems of ``runtime``), its stages' seconds and its cut lines."""
        runtime.seconds = {}
        runtime.truncated = {k: v for k, v in runtime.truncated.items() if k == "sources"}
        values = term_values(self, batch, setting.active(), runtime)
        return values, dict(runtime.seconds), dict(runtime.truncated)

    def normalised(self, sources: list[str], runtime: Runtime) -> list[str]:
        """The sources as the encoder reads them: the export's TEXT normalisation, as at
        training time (the other terms read them as given)."""
        return runtime.once(("text", "sources"), lambda: self.text(sources) if self.text
                            else sources)

    def token_side(self, sentences: list[str], side: str, runtime: Runtime
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
        """One side's n-gram vectors and weights (``side``: ``sources`` or ``hypotheses``):
        encoded, mapped as that side is, idf-weighted; the seconds go to the side's stage and
        the lines cut to the encoder's length to ``runtime.truncated``."""
        clock = time.perf_counter()
        source = side == "sources"
        encoded = self.encoded(sentences, runtime, f"encoding {side}",
                               lambda k: runtime.truncated.setdefault(side, k))
        out = self._prepare(encoded, self.idf_src if source else self.idf_hyp,
                            self._source_transform() if source else self._target_transform(),
                            runtime.progress)
        runtime.seconds[side] = runtime.seconds.get(side, 0.0) + time.perf_counter() - clock
        return out

    def encoded(self, sentences: list[str], runtime: Runtime, desc: str, on_truncate
                ) -> list[tuple[list[str], list[bool], np.ndarray]]:
        """The encoder's tokens and vectors (unmapped), as the runtime's cache keeps them; the
        lines cut to the encoder's length go to ``on_truncate``."""
        out, cut = runtime.cache.tokens(
            encoder_producer(self.encoder), list(sentences),
            lambda s, seen: self.encoder.encode_tokens(s, runtime.batch_size,
                                                       progress=runtime.progress, desc=desc,
                                                       on_truncate=seen))
        if cut:
            on_truncate(cut)
        return out


def is_export(path: str | Path) -> bool:
    """Whether ``path`` is a crossalign export folder (it holds ``remap.json``)."""
    return (Path(path) / "remap.json").is_file()
