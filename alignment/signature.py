"""One-line signatures that say exactly how something was made (after sacreBLEU): one typed
``Signature`` per kind of artifact — an export, an XMoverScore or BERTScore score, an
experiment's table, a small LM — each rendered ``prefix|v:VERSION|key:value|...``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from alignment.version import __version__


def signature(fields: dict[str, object], prefix: str = "crossalign",
              version: str | None = None) -> str:
    """``crossalign|v:0.3.0|key:value|...`` with keys in the given order; None values omitted;
    ``version``: the package version that made the thing signed (default: this one)."""
    parts = [prefix, f"v:{version or __version__}"]
    parts += [f"{k}:{v}" for k, v in fields.items() if v is not None]
    return "|".join(parts)


def parse_signature(text: str) -> dict[str, str]:
    """Inverse of ``signature`` for the key:value fields."""
    items = text.split("|")[1:]
    return dict(item.split(":", 1) for item in items)


class Signature:
    """What every signature kind offers: its fields in order, and their one-line rendering."""

    prefix: ClassVar[str] = "crossalign"
    version: str | None = None  # the package version that made the thing (default: this one)

    def fields(self) -> dict[str, object]:
        raise NotImplementedError

    def __str__(self) -> str:
        return signature(self.fields(), self.prefix, self.version)


@dataclass(frozen=True)
class EncoderSignature:
    """The encoder part every signature starts with: name@revision and layer."""

    encoder: str
    revision: str | None
    layer: int

    @classmethod
    def of(cls, identity) -> "EncoderSignature":
        """From an ``EncoderIdentity``."""
        return cls(identity.encoder, identity.revision, identity.layer)

    def fields(self) -> dict[str, object]:
        return {"enc": f"{self.encoder}@{self.revision}", "L": self.layer}


@dataclass(frozen=True)
class ExportSignature(Signature):
    """A remapped-encoder export, from its ``remap.json`` fields."""

    meta: dict

    @property
    def version(self) -> str | None:  # the version that wrote the export
        return self.meta.get("package_version")

    def fields(self) -> dict[str, object]:
        meta, tok = self.meta, self.meta["tokenizer"]
        return {
            "enc": f"{meta['encoder']}@{meta.get('revision') or 'unknown'}",
            "L": meta["layer"], "pool": meta["pooling"],
            "tok": f"{tok['tokenizer']}.{'lc' if tok.get('lowercase') else 'cased'}"
                   + (".nobare" if tok.get("subwords") else ""),
            "map": f"{meta['mapping_type']}#{meta['mapping_fingerprint']}",
            "side": meta["mapped_side"], "lang": f"{meta['src_lang']}-{meta['tgt_lang']}",
            "data": meta.get("data_fingerprint"), "pairs": meta.get("n_pairs"),
            "align": meta.get("aligner"),
            "ft": f"{meta['fine_tuned']}@{meta.get('base_revision') or 'unknown'}"
            if meta.get("fine_tuned") else None,
            "text": text_description(meta.get("text")),
        }


def export_signature(meta: dict) -> str:
    """Signature of a remapped-encoder export from its ``remap.json`` fields."""
    return str(ExportSignature(meta))


@dataclass(frozen=True)
class XMoverSignature(Signature):
    """An XMoverScore score: version, encoder, the map as applied, n-gram, IDF, LM, TEXT."""

    prefix: ClassVar[str] = "xmoverscore"
    ver: str
    encoder: EncoderSignature
    subwords: bool
    mapping: str
    ngram: int
    idf: str
    lm: str
    coef: float | None
    text: str | None
    languages: str | None
    sentence: str | None = None  # the sentence-level term and its weight, where it is added
    precision: str | None = None  # the opt-in int8 arithmetic; None: fp32, the published one
    xmover: str | None = None  # XMoverScore's own weight where it is not 1 (0: left out)
    terms: str | None = None  # registered terms and their weights (alignment.terms)
    read: str | None = None  # how the MT outputs were read (alignment.xmover.written); None: as given
    over: str | None = None  # what options overrode of the export's scoring configuration
    cal: str | None = None  # the calibration to people's scale (alignment.xmover.calibration)

    def fields(self) -> dict[str, object]:
        return {"ver": self.ver, **self.encoder.fields(),
                "sub": "nobare" if self.subwords else None, "map": self.mapping,
                "ngram": self.ngram, "xm": self.xmover, "idf": self.idf, "lm": self.lm,
                "coef": self.coef,
                "sent": self.sentence, "terms": self.terms, "text": self.text,
                "lang": self.languages, "prec": self.precision, "read": self.read,
                "over": self.over, "cal": self.cal}


@dataclass(frozen=True)
class BertScoreSignature(Signature):
    """A BERTScore score through a remapping (no IDF, no rescaling)."""

    prefix: ClassVar[str] = "bertscore-xl"
    encoder: EncoderSignature
    mapping: str
    form: str = "src"  # against the source (reference-free) or a reference

    def fields(self) -> dict[str, object]:
        return {**self.encoder.fields(), "map": self.mapping, "idf": "none", "rescale": "none",
                "form": self.form}


@dataclass(frozen=True)
class MetricSignature(Signature):
    """A consumer metric's score (``alignment.metrics``): the metric and its version, the
    encoder and layers, the map as applied, its own settings, its preprocessing, and whether it
    read a reference (``form:ref``) or the source (``form:src``)."""

    metric: str
    ver: str
    encoder: dict
    settings: str | None
    preprocessing: str
    form: str

    def fields(self) -> dict[str, object]:
        return {"ver": self.ver, **self.encoder, "set": self.settings, "prep": self.preprocessing,
                "form": self.form}

    def __str__(self) -> str:
        return signature(self.fields(), self.metric, self.version)


@dataclass(frozen=True)
class TableSignature(Signature):
    """An experiment's table: the encoder and pooling, the training data, and (where they
    apply) the aligner, the links used, the unpaired protocol, the pools and the seed."""

    encoder: EncoderSignature
    pool: str
    data: str
    align: str | None = None
    links: str | None = None
    protocol: str | None = None
    pools: str | None = None
    seed: int | None = None

    def fields(self) -> dict[str, object]:
        return {**self.encoder.fields(), "pool": self.pool, "data": self.data,
                "align": self.align, "links": self.links, "protocol": self.protocol,
                "pools": self.pools, "seed": self.seed}


@dataclass(frozen=True)
class LanguageModelSignature(Signature):
    """A small causal LM trained here: its shape, data, epochs, rate and seed."""

    shape: str
    data: str
    epochs: int
    lr: float
    seed: int

    def fields(self) -> dict[str, object]:
        return {"lm": self.shape, "data": self.data, "epochs": self.epochs, "lr": self.lr,
                "seed": self.seed}


def text_description(text: dict | None) -> str | None:
    """TEXT settings in a signature: language, tagger data hash, rules."""
    if not text:
        return None
    return f"{text.get('lang')}:{text.get('tagger')}:{'+'.join(text.get('rules', []))}"
