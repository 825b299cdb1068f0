"""Reuse of the expensive, deterministic steps of scoring across runs: token vectors, sentence
vectors and LM scores of a list of sentences, kept on disk under what made them.

A metric researcher's loop re-scores the same judged segments after changing a map or a
weight; the encoder's vectors and the LM's scores of those sentences do not change, so a rerun
reads them back instead of recomputing them (the same numbers: they are what was computed).
The key is a hash of the producer's identity (weights fingerprint, layer, precision, …), this
format's version and the sentences; files are written atomically and read without pickle."""
from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from alignment.atomic import atomic_path
from alignment.data.cache import default_cache_dir

FORMAT = 1  # bump when what is stored, or how a producer computes it, changes


def reuse_dir() -> Path:
    """``<cache>/reuse`` (the cache is ``$CROSSALIGN_CACHE``, else ``~/.cache/crossalign``)."""
    return default_cache_dir() / "reuse"


def list_key(producer: str, sentences: list[str]) -> str:
    """A file name for ``producer``'s result on ``sentences`` (in order)."""
    h = hashlib.sha256(f"crossalign-reuse-{FORMAT}\n{producer}\n".encode())
    for s in sentences:
        h.update(s.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:32]


def _read(path: Path) -> dict[str, np.ndarray] | None:
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # missing or damaged
        return None


def _write(path: Path, arrays: dict[str, np.ndarray]) -> None:
    try:
        with atomic_path(path) as tmp:
            with tmp.open("wb") as fh:
                np.savez(fh, **arrays)
    except OSError:  # a read-only or full cache costs speed, never a result
        pass


def cached_array(folder: Path | None, producer: str, sentences: list[str], compute):
    """``compute(sentences)`` (one array, a row per sentence), read from ``folder`` when made
    before by the same producer on the same sentences; ``folder`` None: no reuse."""
    if folder is None:
        return compute(sentences)
    path = Path(folder) / f"{list_key(producer, sentences)}.npz"
    got = _read(path)
    if got is not None and got["values"].shape[:1] == (len(sentences),):
        return got["values"]
    values = compute(sentences)
    _write(path, {"values": np.asarray(values)})
    return values


def cached_tokens(folder: Path, producer: str, sentences: list[str], compute):
    """``Encoder.encode_tokens``'s result (per sentence: tokens, special flags, (T, d)
    vectors) and the 1-based numbers of the sentences it cut to the encoder's length
    (``compute(sentences, on_truncate)``), reused as ``cached_array`` does."""
    path = Path(folder) / f"{list_key(producer, sentences)}.npz"
    got = _read(path)
    if got is not None:
        tokens = json.loads(bytes(got["tokens"]).decode("utf-8"))
        if len(tokens) == len(sentences):
            lengths = np.array([len(t) for t in tokens], dtype=np.int64)
            ends = np.cumsum(lengths)
            vecs, special = got["vectors"], got["special"]
            return [(t, special[a:b].tolist(), np.ascontiguousarray(vecs[a:b]))
                    for t, a, b in zip(tokens, ends - lengths, ends)], got["cut"].tolist()
    cut: list[int] = []
    out = compute(sentences, cut.extend)
    dim = out[0][2].shape[1] if out else 0
    _write(path, {
        "tokens": np.frombuffer(json.dumps([t for t, _, _ in out]).encode("utf-8"), np.uint8),
        "special": np.array([f for _, s, _ in out for f in s], dtype=bool),
        "vectors": np.concatenate([v for _, _, v in out]) if out else
        np.zeros((0, dim), np.float32),
        "cut": np.array(cut, dtype=np.int64)})
    return out, cut


def reuse_encodings(encoder, folder: Path, sentence_term=None) -> None:
    """Make ``encoder.encode_tokens`` (and ``sentence_term.vectors``) answer lists of sentences
    computed before from ``folder``. The producer is the encoder's identity (weights
    fingerprint, layer, tokenizer, length limit), its precision and its device type."""
    import warnings

    from alignment.encoding.encoder import truncation_message

    if getattr(encoder, "reuses", None) != folder:
        made_by = f"{encoder.identity()!r}|{encoder.precision}|{encoder.device.type}"
        encode = encoder.encode_tokens

        def encode_tokens(sentences, *args, on_truncate=None, **kwargs):
            out, cut = cached_tokens(folder, f"tokens|{made_by}", sentences,
                                     lambda s, seen: encode(s, *args, on_truncate=seen, **kwargs))
            if cut and on_truncate is not None:
                on_truncate(cut)
            elif cut:
                warnings.warn(truncation_message(cut, encoder.max_length, "the sentences"),
                              stacklevel=2)
            return out

        encoder.encode_tokens, encoder.reuses = encode_tokens, folder
    if sentence_term is not None and getattr(sentence_term, "reuses", None) != folder:
        made_by = (f"sentence|{encoder.identity()!r}|{encoder.precision}|{encoder.device.type}"
                   f"|L{sentence_term.layer}|{sentence_term.prefix!r}")
        vectors = sentence_term.vectors
        sentence_term.vectors = lambda sentences, *a, **kw: cached_array(
            folder, made_by, sentences, lambda s: vectors(s, *a, **kw))
        sentence_term.reuses = folder


def reuse_lm(lm, folder: Path):
    """``lm.score`` answering lists of sentences scored before from ``folder``."""
    if getattr(lm, "reuses", None) != folder:
        from .lm import lm_text

        made_by = f"lm|{lm.weights_ident}|{lm.device.type}"
        score = lm.score
        lm.score = lambda sentences: cached_array(folder, made_by,
                                                  [lm_text(s) for s in sentences], score)
        lm.reuses = folder
    return lm


_STOPPED = False  # set by an explicit --no-reuse for the rest of the process (``stop_reuse``)


def stop_reuse() -> None:
    """Nothing is reused or kept from now on in this process: what an explicit ``--no-reuse``
    asks, the registered terms included (they keep their values otherwise, as the slow part)."""
    global _STOPPED
    _STOPPED = True


def default_reuse(enabled: bool = True) -> Path | None:
    """The folder to reuse results in: None when ``enabled`` is false, ``CROSSALIGN_NO_REUSE``
    is set or ``stop_reuse`` was called."""
    if not enabled or _STOPPED or os.environ.get("CROSSALIGN_NO_REUSE"):
        return None
    return reuse_dir()


def reuse_scorer(scorer, folder: Path) -> None:
    """A scorer's encoder, sentence-level term and LM answer lists of sentences they have
    computed before from ``folder``."""
    reuse_encodings(scorer.encoder, folder, scorer.sentence)
    if scorer.lm is not None:
        reuse_lm(scorer.lm, folder)
