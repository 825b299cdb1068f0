"""A sentence-level remap: a linear map, fitted on the sentence vectors of parallel text only,
that moves one language's sentence embeddings to where its translations lie — in the same
encoder's space or in an English paraphrase model's (multilingual knowledge distillation,
Reimers & Gurevych 2020, with a closed-form linear student head). The metric term is the
cosine there, of both sides centred on their own language's mean: centring removes the
language offset that a plain cosine of two languages mostly measures."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alignment.catalogue import check_choice
from alignment.atomic import atomic_path, write_text
from alignment.errors import InputError

KINDS = ("orthogonal", "least-squares", "centre")
MAP_FILE, WEIGHTS_FILE = "sentence_map.json", "sentence_map.safetensors"
SENTENCE_MAP_DIR = "sentence_map"  # its folder inside an export
DEFAULT_WEIGHT = 0.5  # the term's weight unless one is given: chosen on MLQE-PE dev (docs/single_system.md)
FORMAT = "crossalign-sentence-map-1"
MAP_CHUNK = 2000  # lines encoded at a time for a map (bounded memory; batches fixed by the text)


@dataclass
class SentenceMap:
    """``matrix`` (student dim × space dim) takes the centred sentence vectors of
    ``mapped_lang`` (by the ``student`` encoder) into the space where ``other_lang`` is
    encoded (by ``space``, or the student itself when ``space`` is None), centred there.
    ``student``/``space``: ``{"encoder", "revision", "layer", "prefix"}``; ``coef``: the
    weight the term gets in a score unless one is given; ``data``: where the map came from."""

    kind: str
    matrix: np.ndarray
    mapped_mean: np.ndarray
    other_mean: np.ndarray
    mapped_lang: str
    other_lang: str
    student: dict
    space: dict | None = None
    coef: float = 1.0
    data: dict = field(default_factory=dict)

    def fingerprint(self) -> str:
        """Content hash of the kind, the encoders and the weights as applied (float32)."""
        h = hashlib.sha256(json.dumps({"kind": self.kind, "student": self.student,
                                       "space": self.space, "langs": [self.mapped_lang,
                                                                      self.other_lang]},
                                      sort_keys=True).encode())
        for a in (self.matrix, self.mapped_mean, self.other_mean):
            h.update(np.ascontiguousarray(a, dtype=np.float32).tobytes())
        return h.hexdigest()[:16]

    def describe(self) -> str:
        """The map in a signature: ``orthogonal:de>en#FP`` (``@SPACE`` for another encoder)."""
        space = f"@{self.space['encoder']}" if self.space else ""
        return f"{self.kind}:{self.mapped_lang}>{self.other_lang}{space}#{self.fingerprint()}"

    def map(self, vectors: np.ndarray) -> np.ndarray:
        """``mapped_lang``'s sentence vectors, centred and moved into the space."""
        return (np.asarray(vectors, dtype=np.float64) - self.mapped_mean) @ self.matrix

    def centre(self, vectors: np.ndarray) -> np.ndarray:
        """``other_lang``'s sentence vectors, centred in the space."""
        return np.asarray(vectors, dtype=np.float64) - self.other_mean

    def similarity(self, mapped: np.ndarray, other: np.ndarray) -> np.ndarray:
        """Row-wise cosine of ``mapped_lang`` vectors (mapped) with ``other_lang`` vectors."""
        return cosine(self.map(mapped), self.centre(other))

    def save(self, folder: str | Path) -> None:
        """``sentence_map.json`` and ``sentence_map.safetensors`` in ``folder`` (each written
        under a temporary name, then renamed)."""
        from safetensors.numpy import save_file

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(folder / WEIGHTS_FILE) as tmp:
            save_file({"matrix": np.ascontiguousarray(self.matrix, dtype=np.float32),
                       "mapped_mean": np.ascontiguousarray(self.mapped_mean, dtype=np.float32),
                       "other_mean": np.ascontiguousarray(self.other_mean, dtype=np.float32)},
                      str(tmp))
        meta = {"format": FORMAT, "kind": self.kind, "mapped_lang": self.mapped_lang,
                "other_lang": self.other_lang, "student": self.student, "space": self.space,
                "coef": self.coef, "data": self.data, "fingerprint": self.fingerprint(),
                "signature": self.describe()}
        write_text(folder / MAP_FILE, json.dumps(meta, indent=2, ensure_ascii=False))


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine; 0 where a row is all zeros."""
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    return (a * b).sum(1) / np.where(na * nb > 0, na * nb, 1.0)


def has_sentence_map(folder: str | Path) -> bool:
    """Whether ``folder`` holds a sentence map."""
    return (Path(folder) / MAP_FILE).is_file()


def load_sentence_map(folder: str | Path) -> SentenceMap:
    """The map saved in ``folder``; a missing or damaged file is an error naming it."""
    from safetensors.numpy import load_file

    folder = Path(folder)
    meta_path, weights_path = folder / MAP_FILE, folder / WEIGHTS_FILE
    for path in (meta_path, weights_path):
        if not path.is_file():
            raise InputError(f"{path}: no such file (a sentence map folder holds {MAP_FILE} "
                             f"and {WEIGHTS_FILE})", parameter="sentence-map")
    from alignment.json_file import read_json

    meta = read_json(meta_path, "a sentence map's record")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"format is not {FORMAT}", path=meta_path)
    try:
        w = load_file(str(weights_path))
    except Exception as err:  # safetensors' own error for a damaged file
        raise InputError(f"not a safetensors file ({str(err).splitlines()[0][:80]})",
                         path=weights_path) from None
    try:
        smap = SentenceMap(meta["kind"], w["matrix"].astype(np.float64),
                           w["mapped_mean"].astype(np.float64), w["other_mean"].astype(np.float64),
                           meta["mapped_lang"], meta["other_lang"], meta["student"],
                           meta.get("space"), float(meta.get("coef", 1.0)), meta.get("data", {}))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise InputError(f"a sentence map needs {err} (damaged?)", path=meta_path) from None
    if smap.fingerprint() != meta.get("fingerprint"):
        raise InputError(f"{weights_path}: its weights do not match the fingerprint in "
                         f"{MAP_FILE} (a damaged or replaced file)", parameter="sentence-map")
    return smap


def fit_matrix(mapped: np.ndarray, other: np.ndarray, kind: str,
               ridge: float = 1e-3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(matrix, mapped_mean, other_mean) taking centred ``mapped`` rows onto centred ``other``
    rows (one pair a row): ``orthogonal`` — Procrustes (same dimension; distances kept),
    ``least-squares`` — ridge regression (any dimensions; ``ridge`` × the mean squared norm),
    ``centre`` — no rotation (the identity; same dimension)."""
    check_choice(kind, KINDS, "sentence map kind", "sentence-map")
    x, y = np.asarray(mapped, dtype=np.float64), np.asarray(other, dtype=np.float64)
    if x.ndim != 2 or y.ndim != 2 or len(x) != len(y):
        raise InputError(f"need one vector a pair on each side, got {x.shape} and {y.shape}",
                         parameter="sentence-map")
    if len(x) < 2:
        raise InputError("a sentence map needs at least 2 sentence pairs", parameter="sentence-map")
    mx, my = x.mean(0), y.mean(0)
    xc, yc = x - mx, y - my
    if kind in ("orthogonal", "centre") and x.shape[1] != y.shape[1]:
        raise InputError(f"'{kind}' needs one dimension on both sides ({x.shape[1]} vs "
                         f"{y.shape[1]}): use least-squares for another encoder's space",
                         parameter="sentence-map")
    if kind == "centre":
        return np.eye(x.shape[1]), mx, my
    if kind == "orthogonal":
        u, _, vt = np.linalg.svd(xc.T @ yc)
        return u @ vt, mx, my
    gram = xc.T @ xc
    lam = ridge * float(np.trace(gram)) / gram.shape[0]
    return np.linalg.solve(gram + lam * np.eye(gram.shape[0]), xc.T @ yc), mx, my


def fit_sentence_map(mapped: np.ndarray, other: np.ndarray, kind: str, mapped_lang: str,
                     other_lang: str, student: dict, space: dict | None = None,
                     coef: float = 1.0, data: dict | None = None) -> SentenceMap:
    """A ``SentenceMap`` from sentence vectors of translation pairs (see ``fit_matrix``)."""
    matrix, mx, my = fit_matrix(mapped, other, kind)
    return SentenceMap(kind, matrix, mx, my, mapped_lang, other_lang, dict(student),
                       dict(space) if space else None, coef, dict(data or {}))


def resolve_sentence_map(export: str | Path | None, given=None) -> SentenceMap | None:
    """The sentence map a scorer uses: ``given`` (a folder or a ``SentenceMap``), else the
    ``export``'s own (``EXPORT/sentence_map``), else None; ``"none"``: None."""
    if isinstance(given, str) and given == "none":
        return None
    if isinstance(given, SentenceMap):
        return given
    if given is not None:
        return load_sentence_map(given)
    own = None if export is None else Path(export) / SENTENCE_MAP_DIR
    return load_sentence_map(own) if own is not None and has_sentence_map(own) else None


def text_fingerprint(*sides: list[str]) -> str:
    """16 hex digits naming the sentence pairs a map was fitted on."""
    h = hashlib.sha256()
    for lines in sides:
        for line in lines:
            h.update(line.encode("utf-8") + b"\n")
        h.update(b"\0")
    return h.hexdigest()[:16]


def map_vectors(term, lines: list[str], progress: bool = False,
                desc: str = "sentence vectors", cache=None) -> np.ndarray:
    """``term``'s sentence vectors of ``lines`` as a map is fitted on them: ``MAP_CHUNK`` lines
    at a time (length-sorted batches within each chunk), kept at float32, the precision the
    encoder computes in. The same text gives the same bytes whoever encodes it, so a map
    rebuilt from its recipe (``crossalign export --build``) reproduces its fingerprint;
    ``cache``: where they are kept across runs (an ``alignment.xmover.reuse.Cache``)."""
    chunks = [term.kept_vectors(lines[k:k + MAP_CHUNK], cache, progress, desc)
              .astype(np.float32) for k in range(0, len(lines), MAP_CHUNK)]
    return np.concatenate(chunks).astype(np.float64) if chunks else np.zeros((0, 0))


def sentence_map_from_text(encoder, mapped: list[str], other: list[str], kind: str,
                           mapped_lang: str, other_lang: str, layer: int = -1,
                           space: str | None = None, coef: float = 1.0, batch_size: int = 64,
                           progress: bool = False, reuse: Path | None = None) -> SentenceMap:
    """Fit a sentence map on translation pairs (``mapped[i]`` ↔ ``other[i]``): ``encoder``'s
    sentence vectors (``SentenceSimilarity`` at ``layer``) of ``mapped`` onto those of
    ``other`` — by the same encoder, or by ``space`` (an English paraphrase model's name or
    path, its last layer, no prefix). ``reuse``: a folder keeping the vectors across runs."""
    from .reuse import Cache
    from .sentence_vectors import SentenceSimilarity

    if len(mapped) != len(other):
        raise InputError(f"{len(mapped)} sentences against {len(other)} translations: give "
                         "one translation a line", parameter="sentence-map")
    check_choice(kind, KINDS, "sentence map kind", "sentence-map")
    term = SentenceSimilarity(encoder, layer, batch_size=batch_size)
    kept = Cache(reuse) if reuse is not None else None
    x = map_vectors(term, mapped, progress, f"sentence vectors ({mapped_lang})", kept)
    student = {"encoder": encoder.spec.name, "revision": encoder.identity().revision,
               "layer": term.layer, "prefix": term.prefix}
    space_meta = None
    if space is not None:
        from alignment.encoding.encoder import load_encoder

        teacher = SentenceSimilarity(load_encoder(space, device=str(encoder.device)), -1,
                                     batch_size=batch_size)
        y = map_vectors(teacher, other, progress, f"sentence vectors ({other_lang})")
        space_meta = {"encoder": teacher.encoder.spec.name,
                      "revision": teacher.encoder.identity().revision,
                      "layer": teacher.layer, "prefix": teacher.prefix}
    else:
        y = map_vectors(term, other, progress, f"sentence vectors ({other_lang})", kept)
    data = {"n_pairs": len(mapped), "text": text_fingerprint(mapped, other)}
    return fit_sentence_map(x, y, kind, mapped_lang, other_lang, student, space_meta, coef, data)


def add_sentence_map(directory: str | Path, sentence_map, out: str | Path | None = None) -> dict:
    """Put ``sentence_map`` (a ``SentenceMap``) into the export at ``directory`` (its
    ``sentence_map/`` folder, named in ``remap.json``): a copy with the map is written beside
    ``out`` (default: ``directory`` itself), then swapped in. A scorer on the export adds the
    map's sentence-level term by default."""
    import shutil

    from alignment.atomic import MANIFEST, atomic_dir
    from alignment.export.remap_schema import check_remap
    from alignment.export.remapped import REMAP_FILE

    directory = Path(directory)
    meta_path = directory / REMAP_FILE
    if not meta_path.is_file():
        raise InputError(f"{directory} is not an export (no {REMAP_FILE})", parameter="export")
    meta = check_remap(json.loads(meta_path.read_text(encoding="utf-8")), meta_path)
    if sentence_map.student.get("encoder") != meta["encoder"]:
        raise InputError(f"the sentence map was fitted on {sentence_map.student.get('encoder')}, "
                         f"the export's encoder is {meta['encoder']}", parameter="sentence-map")
    with atomic_dir(directory if out is None else out, REMAP_FILE, inputs=(
            () if out is None else (directory,))) as tmp:
        for item in directory.iterdir():
            if item.name in (MANIFEST, SENTENCE_MAP_DIR, REMAP_FILE):
                continue
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, tmp / item.name)
        sentence_map.save(tmp / SENTENCE_MAP_DIR)
        meta["sentence_map"] = sentence_map.describe()
        write_text(tmp / REMAP_FILE, json.dumps(meta, indent=2, ensure_ascii=False))
    return meta
