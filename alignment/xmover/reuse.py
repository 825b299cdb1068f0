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

FORMAT = 2  # bump when what is stored, or how a producer computes it, changes (2: the producer
# is recorded inside each entry)


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
    """The arrays of an entry, or None where it is missing, damaged or not an archive of
    arrays (a plain array file in its place, a folder)."""
    try:
        with path.open("rb") as fh:
            data = np.load(fh, allow_pickle=False)
            if not isinstance(data, np.lib.npyio.NpzFile):
                return None
            with data:
                return {k: data[k] for k in data.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # missing or damaged
        return None


_NOTED: set[str] = set()  # folders whose damaged entries were already noted in this process


def _drop(path: Path, why: str) -> None:
    """A reuse entry that is not what its name says (damaged, planted, of another kind or
    shape, non-finite) is removed, to be recomputed; one note a folder and process."""
    import sys

    if str(path.parent) not in _NOTED:
        _NOTED.add(str(path.parent))
        print(f"crossalign: note: a reused result in {path.parent} was {why}: recomputed",
              file=sys.stderr, flush=True)
    try:
        path.unlink()
    except OSError:
        pass


def _numbers(values: np.ndarray, rows: int, ndim: int | None) -> str | None:
    """What is wrong with a stored array of ``rows`` rows (None: nothing)."""
    if values.dtype.kind not in "fiu" or values.ndim == 0 or values.shape[0] != rows:
        return "of another kind or shape"
    if ndim is not None and values.ndim != ndim:
        return "of another kind or shape"
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        return "not finite"
    return None


def _write(path: Path, arrays: dict[str, np.ndarray]) -> None:
    if any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in arrays.values()):
        return  # a non-finite result is never kept: it would come back on every run
    try:
        with atomic_path(path) as tmp:
            with tmp.open("wb") as fh:
                np.savez(fh, **arrays)
    except OSError:  # a read-only or full cache costs speed, never a result
        pass


def _entry(path: Path, producer: str) -> dict[str, np.ndarray] | None:
    """The stored arrays at ``path`` when they were made by ``producer`` (recorded inside each
    entry); a damaged entry or another producer's is dropped."""
    got = _read(path)
    if got is None:
        if path.exists():
            _drop(path, "damaged")
        return None
    made_by = got.get("producer")
    if made_by is None or made_by.dtype != np.uint8 or bytes(made_by) != producer.encode():
        _drop(path, "made by something else")
        return None
    return got


def cached_array(folder: Path | None, producer: str, sentences: list[str], compute,
                 ndim: int | None = None):
    """``compute(sentences)`` (one array, a row per sentence), read from ``folder`` when made
    before by the same producer on the same sentences; ``folder`` None: no reuse. ``ndim``:
    the array's number of dimensions (1 for a score a sentence), checked on read."""
    if folder is None:
        return compute(sentences)
    path = Path(folder) / f"{list_key(producer, sentences)}.npz"
    got = _entry(path, producer)
    if got is not None:
        why = "of another kind" if "values" not in got else _numbers(got["values"],
                                                                      len(sentences), ndim)
        if why is None:
            return got["values"]
        _drop(path, why)
    values = compute(sentences)
    _write(path, {"values": np.asarray(values), "producer": _text(producer)})
    return values


def _text(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), np.uint8)


def _stored_tokens(got: dict[str, np.ndarray], n: int) -> tuple[list | None, str | None]:
    """(the tokens of a stored ``encode_tokens`` result for ``n`` sentences, None) when its
    arrays fit together, else (None, what is wrong with it)."""
    if not {"tokens", "special", "vectors", "cut"} <= set(got):
        return None, "of another kind"
    try:
        tokens = json.loads(bytes(got["tokens"]).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None, "damaged"
    if not isinstance(tokens, list) or len(tokens) != n or not all(
            isinstance(t, list) and all(isinstance(w, str) for w in t) for t in tokens):
        return None, "of another kind or shape"
    total = sum(len(t) for t in tokens)
    vectors, special, cut = got["vectors"], got["special"], got["cut"]
    why = _numbers(vectors, total, 2) if total else None
    if why or special.shape != (total,) or special.dtype != bool or cut.ndim != 1 \
            or cut.dtype.kind not in "iu":
        return None, why or "of another kind or shape"
    return tokens, None


def cached_tokens(folder: Path, producer: str, sentences: list[str], compute):
    """``Encoder.encode_tokens``'s result (per sentence: tokens, special flags, (T, d)
    vectors) and the 1-based numbers of the sentences it cut to the encoder's length
    (``compute(sentences, on_truncate)``), reused as ``cached_array`` does."""
    path = Path(folder) / f"{list_key(producer, sentences)}.npz"
    got = _entry(path, producer)
    if got is not None:
        tokens, why = _stored_tokens(got, len(sentences))
        if tokens is not None:
            lengths = np.array([len(t) for t in tokens], dtype=np.int64)
            ends = np.cumsum(lengths)
            vecs, special = got["vectors"], got["special"]
            return [(t, special[a:b].tolist(), np.ascontiguousarray(vecs[a:b]))
                    for t, a, b in zip(tokens, ends - lengths, ends)], got["cut"].tolist()
        _drop(path, why)
    cut: list[int] = []
    out = compute(sentences, cut.extend)
    dim = out[0][2].shape[1] if out else 0
    _write(path, {
        "tokens": _text(json.dumps([t for t, _, _ in out])),
        "special": np.array([f for _, s, _ in out for f in s], dtype=bool),
        "vectors": np.concatenate([v for _, _, v in out]) if out else
        np.zeros((0, dim), np.float32),
        "cut": np.array(cut, dtype=np.int64), "producer": _text(producer)})
    return out, cut


_DEFAULT = object()


class Cache:
    """What a scorer's runtime keeps beyond one call, instead of anything kept by a module:
    lists of sentences encoded or scored before — in memory for this run (``remember``: the
    rows of one table, the word pass after the score) and on disk across runs (``folder``: the
    encodings and LM scores; ``values``: the slow terms' values, kept unless ``--no-reuse``
    or ``CROSSALIGN_NO_REUSE`` says not) — the LMs its terms loaded (``model``) and the
    weights its scorers loaded (``weights``: one copy of an encoder or LM for all of them)."""

    def __init__(self, folder: Path | None = None, values=_DEFAULT, remember: bool = False
                 ) -> None:
        self.folder = folder
        self.values = default_reuse() if values is _DEFAULT else values
        self.memory: dict | None = {} if remember else None
        self.models: dict = {}
        self.weights: dict = {}  # loaded encoder and LM weights, tokenizers and configs

    def remembering(self) -> "Cache":
        """This cache (its folders, its loaded LMs) remembering lists of sentences in memory."""
        if self.memory is not None:
            return self
        out = Cache(self.folder, self.values, remember=True)
        out.models, out.weights = self.models, self.weights
        return out

    def forget(self) -> None:
        """What memory holds let go (between the pairs of a table: each pair's text is new)."""
        if self.memory is not None:
            self.memory.clear()

    def model(self, key, load):
        """The model kept under ``key`` (an LM a term reads), loaded by ``load()`` once."""
        if key not in self.models:
            self.models[key] = load()
        return self.models[key]

    def _once(self, key, compute):
        """``compute()``, remembered under ``key`` while this cache remembers (``key``: a
        function giving it, called only then)."""
        if self.memory is None:
            return compute()
        key = key()
        if key not in self.memory:
            self.memory[key] = compute()
        return self.memory[key]

    def _remembered(self, producer: str, sentences: list[str], compute):
        return self._once(lambda: (producer, len(sentences), hash(tuple(sentences))), compute)

    def term_values(self, key, compute):
        """``compute()`` (a term's values on a batch), remembered under ``key()`` (the term's
        identity and a digest of the batch, made only while this cache remembers): computed
        once for every row of a table that weighs the term on the same text."""
        return self._once(lambda: ("term", *key()), compute)

    def tokens(self, producer: str, sentences: list[str], compute):
        """``compute(sentences, on_truncate)``'s token vectors (as ``Encoder.encode_tokens``
        gives them) and the 1-based lines cut, remembered and kept as this cache does."""
        def fresh():
            if self.folder is not None:
                return cached_tokens(self.folder, f"tokens|{producer}", sentences, compute)
            cut: list[int] = []
            return compute(sentences, cut.extend), cut

        return self._remembered(f"tokens|{producer}", sentences, fresh)

    def array(self, producer: str, sentences: list[str], compute, ndim: int | None = None,
              folder=_DEFAULT):
        """``compute(sentences)`` (a row a sentence), remembered and kept in ``folder``
        (default: this cache's)."""
        where = self.folder if folder is _DEFAULT else folder
        return self._remembered(producer, sentences, lambda: cached_array(
            where, producer, sentences, compute, ndim))

    def lm_scores(self, lm, sentences: list[str]) -> np.ndarray:
        """``lm.score(sentences)``, remembered and kept (under the text the LM reads)."""
        from .lm import lm_text

        return self.array(f"lm|{lm.weights_ident}|{lm.device.type}",
                          [lm_text(s) for s in sentences], lm.score, ndim=1)


def encoder_producer(encoder) -> str:
    """What made an encoder's vectors: its identity (weights fingerprint, layer, tokenizer,
    length limit), its precision and its device type."""
    return f"{encoder.identity()!r}|{encoder.precision}|{encoder.device.type}"


def default_reuse(enabled: bool = True) -> Path | None:
    """The folder to reuse results in: None when ``enabled`` is false or
    ``CROSSALIGN_NO_REUSE`` is set."""
    if not enabled or os.environ.get("CROSSALIGN_NO_REUSE"):
        return None
    return reuse_dir()
