"""Export and load of remapped encoders: a directory with ``remap.json``, the mapping weights and,
for linear maps, XMoverScore-format files."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from alignment.atomic import atomic_dir, write_text
from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.errors import InputError
from alignment.mappings import Mapping, load_mapping
from .provenance import DataProvenance
from .remap_schema import check_consistent, check_remap
from alignment.signature import export_signature
from alignment.encoding.text_normalise import SpanishTextNormaliser, text_normaliser
from alignment.data.tokenize import Tokenizer
from alignment.version import __version__
from alignment.export.xmover_files import write_xmover_files

REMAP_FILE = "remap.json"
# 2: the mapping's tensors stored once (alignment.mappings.compact), no file of the identity
REMAP_FORMAT = "crossalign-remap-2"
NORM_FILE = "norm.safetensors"


def remap_fields(mapping: Mapping, data: DataProvenance, **revision: str | None) -> dict:
    """The ``remap.json`` fields every export has: encoder identity (``revision``: the
    revision field(s), placed after the encoder's name), mapping, data."""
    ident = data.encoder
    return {
        "format": REMAP_FORMAT,
        "encoder": ident.encoder, **revision,
        "layer": ident.layer, "pooling": ident.pooling, "max_length": ident.max_length,
        "tokenizer": {"tokenizer": ident.tokenizer, "lowercase": ident.lowercase,
                      **({"subwords": ident.subwords} if ident.subwords else {})},
        "mapping_type": mapping.describe(), "mapping_fingerprint": mapping.fingerprint(),
        "mapped_side": "src" if mapping.is_source_only() else "both", "dim": mapping.dim,
        "src_lang": data.src_lang, "tgt_lang": data.tgt_lang,
        "data_fingerprint": data.data_fingerprint, "n_pairs": data.n_pairs,
        "aligner": data.aligner,
        "n_sentences": data.n_sentences, "package_version": __version__,
    }


def export_remapped(directory: str | Path, mapping: Mapping, data: DataProvenance,
                    extra: dict | None = None, overwrite: bool = False,
                    inputs: tuple[str | Path, ...] = ()) -> dict:
    """Write a remapped-encoder export and return its ``remap.json`` content.

    ``directory`` may be new, empty or a previous export (replaced atomically); anything else
    is refused unless ``overwrite`` (see ``alignment.atomic.check_output_dir``)."""
    directory = Path(directory)
    if data.encoder is None:
        raise InputError("this mapping was fitted on precomputed vectors: no encoder to export "
                         "with", parameter="encoder")
    meta = {**remap_fields(mapping, data, revision=data.encoder.revision), "encoder_weights": None}
    meta.update(extra or {})
    with atomic_dir(directory, REMAP_FILE, overwrite, inputs) as tmp:
        mapping.save(tmp / "mapping")
        names, why_not = write_xmover_files(tmp, mapping, data.corpus, data.src_lang,
                                            data.tgt_lang, data.n_sentences or 0, data.encoder.layer)
        meta["xmoverscore_files"] = names
        meta["xmoverscore_note"] = why_not or None
        meta["applied"] = applied_in_words(meta["mapped_side"], names)
        meta["signature"] = export_signature(meta)
        write_text(tmp / REMAP_FILE, json.dumps(meta, indent=2, ensure_ascii=False))
    return meta


def export_encoder(directory: str | Path, model, tokenizer, head: Mapping, data: DataProvenance,
                   norm_stats: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                   text: dict | None = None, extra: dict | None = None,
                   overwrite: bool = False) -> dict:
    """Export a fine-tuned encoder (Joint-Align) as a plain HF model directory — config,
    weights and tokenizer at the top, so ``AutoModel.from_pretrained(dir)`` and BERTScore load
    it with no crossalign code — plus ``remap.json`` (layer, pooling, TEXT settings,
    signature), the head (``mapping/``, NORM by default) and every language's NORM statistics
    (``norm.safetensors``: ``mean.<lang>``, ``std.<lang>``) for code that applies them itself."""
    from safetensors.numpy import save_file

    from alignment.encoding.encoder import weights_fingerprint

    directory = Path(directory)
    if data.encoder is None:
        raise InputError("no encoder identity in the data's provenance", parameter="encoder")
    meta = {
        **remap_fields(head, data, base_revision=data.encoder.revision),
        "encoder_weights": ".", "text": text,
        "norm_stats": NORM_FILE if norm_stats else None,
        "xmoverscore_files": [], "xmoverscore_note": "the encoder itself changed: use the "
        "directory as the model (HF format), with the head in mapping/ or norm.safetensors",
    }
    meta.update(extra or {})
    with atomic_dir(directory, REMAP_FILE, overwrite) as tmp:
        model.save_pretrained(tmp, safe_serialization=True)
        # the usable input length travels with the tokenizer (code such as BERTScore pads and
        # truncates to ``model_max_length``; some tokenizers leave it unset)
        tokenizer.model_max_length = data.encoder.max_length
        tokenizer.save_pretrained(tmp)
        head.save(tmp / "mapping")
        if norm_stats:
            save_file({f"{kind}.{lang}": np.ascontiguousarray(v, dtype=np.float32)
                       for lang, (mean, std) in norm_stats.items()
                       for kind, v in (("mean", mean), ("std", std))}, str(tmp / NORM_FILE))
        meta["revision"] = weights_fingerprint(str(tmp))  # the fine-tuned weights' own hash
        meta["applied"] = ("crossalign (--encoder EXPORT): this directory's encoder, "
                           + ("TEXT on the source side, " if text else "")
                           + f"then {head.describe()} per language")
        meta["signature"] = export_signature(meta)
        write_text(tmp / REMAP_FILE, json.dumps(meta, indent=2, ensure_ascii=False))
    return meta


def applied_in_words(mapped_side: str, xmover_files: list[str]) -> str:
    """In words, which side of the mapping each path applies (remap.json's ``applied``)."""
    ours = "crossalign (--encoder EXPORT): source-language vectors through the mapping's source side"
    if mapped_side != "src":
        ours += (", target-language vectors through its target side (for UMD: the direction "
                 "removed from both languages, as the paper defines it)")
    if not xmover_files:
        return ours + "; no public XMoverScore file"
    public = f"the public code applies {xmover_files[0]} to the source side only"
    if xmover_files[0].endswith("GBDD"):
        public += (" (for UMD: the direction removed from the source only; crossalign score "
                   "--mapping-both-sides applies it to both)")
    return ours + "; " + public


class RemappedEncoder:
    """An encoder plus its mapping: sentences in, remapped word vectors out."""

    def __init__(self, encoder: Encoder, mapping: Mapping, meta: dict,
                 text: SpanishTextNormaliser | None = None) -> None:
        self.encoder, self.mapping, self.meta, self.text = encoder, mapping, meta, text

    @property
    def signature(self) -> str:
        return self.meta["signature"]

    def encode(self, sentences: list[str], side: str = "src", batch_size: int = 64,
               progress: bool = False) -> list[tuple[list[str], np.ndarray]]:
        """Per sentence: its words and their remapped vectors (n_words, d).

        ``side='src'`` applies the map to source-language text, ``'tgt'`` what it does to the
        target language (unchanged for source-only maps such as CLP)."""
        if side not in ("src", "tgt"):
            raise InputError("side must be 'src' or 'tgt'", parameter="side")
        if self.text is not None and side == "src":  # TEXT as at training time
            sentences = self.text(sentences)
        words = self.encoder.tokenize_words(sentences)
        vecs = self.encoder.encode_words(words, batch_size=batch_size, progress=progress)
        return list(zip(words, [self.mapping.map_array(v, side) for v in vecs]))

    __call__ = encode


def read_remap_json(directory: str | Path) -> dict:
    path = Path(directory) / REMAP_FILE
    if not path.is_file():
        raise InputError(f"no {REMAP_FILE}: not a crossalign export", path=directory)
    from alignment.json_file import read_json

    return check_remap(read_json(path, "an export's record"), path)


def load_remapped(directory: str | Path, encoder: str | None = None, device: str | None = None,
                  strict: bool = True, share: dict | None = None, precision: str = "fp32",
                  dtype: str = "auto") -> RemappedEncoder:
    """Load an export; ``encoder`` overrides where the encoder is found (same weights required);
    ``share``: for inference, a pool of loaded weights (``Encoder``; a runtime's cache's);
    ``dtype``: ``auto`` (bf16 autocast on a GPU), ``fp32`` or ``bf16``.

    Refuses a mapping whose dimension differs from the encoder's, and (with ``strict``) an
    encoder whose revision differs from the one the mapping was trained on."""
    from .named import resolve_export

    directory = Path(resolve_export(str(directory)))  # a short name works too
    meta = read_remap_json(directory)
    weights_here = meta.get("encoder_weights") == "."
    spec = EncoderSpec(encoder or (str(directory) if weights_here else meta["encoder"]),
                       meta["layer"], meta["pooling"],
                       meta.get("max_length", 512))
    tok = meta["tokenizer"]
    enc = Encoder(spec, device=device, dtype=dtype, word_tokenizer=Tokenizer.from_settings(tok),
                  share=share, precision=precision)
    if enc.dim != meta["dim"]:
        raise InputError(f"mapping has dimension {meta['dim']} but encoder '{spec.name}' has "
                         f"{enc.dim}", path=directory / REMAP_FILE)
    if strict and meta.get("revision") and enc.revision != meta["revision"]:
        raise InputError(f"encoder revision {enc.revision} differs from the export's "
                         f"{meta['revision']} (pass strict=False to override)",
                         path=directory / REMAP_FILE)
    mapping = load_mapping(directory / "mapping", dim=enc.dim)
    if meta.get("mapping_fingerprint") not in (None, mapping.fingerprint()):
        raise InputError(f"the mapping's weights do not match the fingerprint "
                         f"{meta['mapping_fingerprint']} in {REMAP_FILE} (edited or corrupt)",
                         path=directory / REMAP_FILE)
    check_consistent(meta, mapping, directory / REMAP_FILE)
    return RemappedEncoder(enc, mapping, meta, text_normaliser(meta.get("text")))


def export_for_language(directory: str | Path, src_lang: str, out: str | Path,
                        tgt_lang: str | None = None, device: str | None = None) -> dict:
    """An export of a jointly fine-tuned encoder (Joint-Align over several languages) for
    another of its languages: the same weights with the NORM head of ``src_lang`` → ``tgt_lang``
    (default: the export's target) from the language statistics the export keeps; returns the
    new ``remap.json``. Refused for an export without per-language statistics."""
    from safetensors.numpy import load_file

    from alignment.encoding.identity import EncoderIdentity
    from alignment.encoding.norm_head import running_norm

    meta = read_remap_json(directory)
    if meta.get("encoder_weights") != "." or not meta.get("norm_stats"):
        raise InputError("not a fine-tuned export with per-language NORM statistics (only "
                         "those can be exported for another language)", path=directory)
    stats_file = load_file(str(Path(directory) / meta["norm_stats"]))
    languages = sorted(k.split(".", 1)[1] for k in stats_file if k.startswith("mean."))
    tgt_lang = tgt_lang or meta["tgt_lang"]
    for lang, name in ((src_lang, "src-lang"), (tgt_lang, "tgt-lang")):
        if lang not in languages:
            raise InputError(f"the export has statistics for {', '.join(languages)}, not '{lang}'",
                             parameter=name)
    stats = {lang: (stats_file[f"mean.{lang}"], stats_file[f"std.{lang}"]) for lang in languages}
    load_remapped(directory, device=device)  # verified whole before it is copied
    tok = meta["tokenizer"]
    ident = EncoderIdentity(meta["encoder"], meta.get("base_revision"), meta["layer"],
                            meta["pooling"], meta.get("max_length", 512), tok["tokenizer"],
                            tok.get("lowercase", False), tok.get("subwords"))
    data = DataProvenance(ident, meta.get("data_fingerprint"), meta.get("n_sentences"),
                          meta.get("n_pairs"), "export", src_lang, tgt_lang,
                          aligner=meta.get("aligner"))
    keep = {k: meta[k] for k in ("fine_tuned", "hyperparameters", "selected", "metrics")
            if k in meta}
    keep["derived_from"] = {"export": meta["signature"], "src_lang": meta["src_lang"]}
    weights = _CopiedFiles(Path(directory))  # byte for byte: the same weights, the same revision
    return export_encoder(out, weights, weights, running_norm(stats[src_lang], stats[tgt_lang]),
                          data, stats, meta.get("text"), keep)


class _CopiedFiles:
    """Stands in for a model and its tokenizer in ``export_encoder``: ``save_pretrained`` copies
    an export's own model and tokenizer files instead of re-serialising them."""

    def __init__(self, source: Path) -> None:
        from alignment.atomic import MANIFEST

        self.files = [f for f in source.iterdir()
                      if f.is_file() and f.name not in (REMAP_FILE, NORM_FILE, MANIFEST)]
        self.model_max_length = None

    def save_pretrained(self, target, **_) -> None:
        import shutil

        for f in self.files:
            if not (Path(target) / f.name).exists():
                shutil.copyfile(f, Path(target) / f.name)
