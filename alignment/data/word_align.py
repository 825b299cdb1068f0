"""Word alignment: Pharaoh ``i-j`` files, symmetrisation, the eflomal aligner, 1-to-1 filtering."""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import tempfile
import threading
import warnings
from pathlib import Path

from alignment.catalogue import Registry
from alignment.errors import InputError

Links = list[tuple[int, int]]

DEFAULT_SEED = 0  # eflomal's sampler seed unless a caller names another (None: unseeded)
_ENVIRON_LOCK = threading.Lock()


def parse_pharaoh_line(line: str, path: str | Path | None = None, number: int | None = None) -> Links:
    """Parse ``0-0 1-2 ...`` (fast_align/eflomal may append ``-p`` probabilities; ignored)."""
    links: Links = []
    for item in line.split():
        parts = item.split("-")
        try:
            i, j = int(parts[0]), int(parts[1])
        except (ValueError, IndexError):
            raise InputError(f"bad alignment link '{item}' (expected i-j)", path=path, line=number) from None
        if i < 0 or j < 0:
            raise InputError(f"negative index in link '{item}'", path=path, line=number)
        links.append((i, j))
    return links


def read_pharaoh(path: str | Path, src_lengths: list[int] | None = None,
                 tgt_lengths: list[int] | None = None, total_lines: int | None = None) -> list[Links]:
    """Read a Pharaoh file; with token counts given, check line count and index ranges.

    ``total_lines``: the file belongs to a corpus of that many pairs of which the first
    ``len(src_lengths)`` are used (a corpus cut by ``max_sentences``); it must have exactly
    ``total_lines`` lines, and the links of the first ones are returned."""
    path = Path(path)
    if not path.is_file():
        raise InputError("alignment file not found", path=path)
    result: list[Links] = []
    lines = 0
    with path.open("rb") as fh:
        for number, line in _decoded_lines(fh, path):
            lines = number
            if total_lines is not None and src_lengths is not None and number > len(src_lengths):
                continue  # beyond the cut: only counted
            links = parse_pharaoh_line(line, path, number)
            k = number - 1
            if src_lengths is not None and k < len(src_lengths):
                for i, j in links:
                    if i >= src_lengths[k] or (tgt_lengths is not None and j >= tgt_lengths[k]):
                        raise InputError(
                            f"link {i}-{j} out of range: sentence pair has {src_lengths[k]} source "
                            f"and {tgt_lengths[k] if tgt_lengths else '?'} target tokens",
                            path=path, line=number)
            result.append(links)
    expected = total_lines if total_lines is not None else \
        (len(src_lengths) if src_lengths is not None else None)
    if expected is not None and lines != expected:
        raise InputError(f"{lines} alignment lines for {expected} sentence pairs",
                         path=path, line=lines + 1)
    return result


def _decoded_lines(fh, path: Path):
    """Numbered text lines of a binary file; a line that is not UTF-8 is an error naming it."""
    for number, raw in enumerate(fh, start=1):
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", path=path, line=number) from None


def format_pharaoh(links: Links) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def links_fingerprint(alignments: list[Links]) -> str:
    """Content hash of a corpus's links as their Pharaoh text (16 hex digits)."""
    h = hashlib.sha256()
    for links in alignments:
        h.update(format_pharaoh(links).encode() + b"\n")
    return h.hexdigest()[:16]


def write_pharaoh(path: str | Path, alignments: list[Links]) -> None:
    """Write a Pharaoh file atomically."""
    from alignment.atomic import write_text

    write_text(path, "".join(format_pharaoh(a) + "\n" for a in alignments))


def intersect(forward: Links, reverse: Links) -> Links:
    """Links found in both directions (high precision)."""
    return sorted(set(forward) & set(reverse))


def grow_diag_final_and(forward: Links, reverse: Links) -> Links:
    """Koehn's grow-diag-final-and symmetrisation of two directional alignments (src-tgt links)."""
    fwd, rev = set(forward), set(reverse)
    union = fwd | rev
    alignment = fwd & rev
    neighbours = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]

    def aligned_src(i: int) -> bool:
        return any(a == i for a, _ in alignment)

    def aligned_tgt(j: int) -> bool:
        return any(b == j for _, b in alignment)

    added = True
    while added:
        added = False
        for i, j in sorted(alignment):
            for di, dj in neighbours:
                cand = (i + di, j + dj)
                if cand in union and cand not in alignment and (
                        not aligned_src(cand[0]) or not aligned_tgt(cand[1])):
                    alignment.add(cand)
                    added = True
    for directional in (fwd, rev):  # final-and: both words must still be unaligned
        for i, j in sorted(directional):
            if not aligned_src(i) and not aligned_tgt(j):
                alignment.add((i, j))
    return sorted(alignment)


SYMMETRISERS = Registry.of("symmetrisation", {"intersect": intersect,
                                               "grow-diag-final-and": grow_diag_final_and},
                           "symmetrise")


def one_to_one(links: Links) -> Links:
    """Keep only links whose source and target words take part in no other link (Cao et al.)."""
    src_count: dict[int, int] = {}
    tgt_count: dict[int, int] = {}
    for i, j in links:
        src_count[i] = src_count.get(i, 0) + 1
        tgt_count[j] = tgt_count.get(j, 0) + 1
    return [(i, j) for i, j in links if src_count[i] == 1 and tgt_count[j] == 1]


def aligner_identity(seed: int | None = DEFAULT_SEED, symmetrise: str = "grow-diag-final-and",
                     alignment: str | Path = "eflomal") -> str:
    """What made a corpus's links, for signatures and run records: aligner, version and build,
    the sampler's seed (``unseeded`` when eflomal drew its own) and the symmetrisation."""
    if str(alignment) != "eflomal":
        return "pharaoh-file"  # the user's own links; the links fingerprint identifies them
    return f"eflomal-{eflomal_build()},seed={'unseeded' if seed is None else seed},{symmetrise}"


@functools.lru_cache(maxsize=1)
def eflomal_build() -> str:
    """``VERSION@HASH``: eflomal's release and its binary's hash. eflomal compiles itself on
    install, by default for the installing CPU (``-march=native``), and builds for different
    CPUs sample differently; a portable build (README) has the same hash on every machine."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("eflomal")
        import eflomal
    except (PackageNotFoundError, ImportError):
        return "missing"
    binary = Path(eflomal.__file__).parent / "bin" / "eflomal"
    digest = hashlib.sha256(binary.read_bytes()).hexdigest()[:8] if binary.is_file() else "nobinary"
    return f"{release}@{digest}"


def check_align_seed(seed: object, parameter: str = "align_seed") -> None:
    """A sampler seed is a whole number in [0, 2^63), or None (unseeded)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed < 2 ** 63):
        raise InputError(f"alignment seed must be a whole number in [0, 2^63), got {seed!r}",
                         parameter=parameter)


@contextlib.contextmanager
def _environment(extra: dict[str, str]):
    """``os.environ`` with ``extra`` set while the aligner's process starts, then restored."""
    with _ENVIRON_LOCK:
        saved = {k: os.environ.get(k) for k in extra}
        os.environ.update(extra)
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def eflomal_align(src_tokens: list[list[str]], tgt_tokens: list[list[str]],
                  symmetrise: str = "grow-diag-final-and", model: int = 3,
                  n_samplers: int = 3, seed: int | None = DEFAULT_SEED,
                  cache_dir: Path | None = None) -> list[Links]:
    """Align tokenised sentence pairs with eflomal (both directions) and symmetrise.

    ``seed`` fixes eflomal's sampler (see ``seeded_eflomal``): the same corpus and seed give
    the same links on every run. ``None`` lets eflomal draw its own seed (links vary by run).
    """
    SYMMETRISERS.lookup(symmetrise)  # an unknown one: refused before anything runs
    check_align_seed(seed)
    try:
        import eflomal
    except ImportError:
        raise InputError("eflomal is not installed (pip install 'crossalign[align]'), or pass an "
                         "existing Pharaoh alignment file", parameter="aligner") from None
    for k, (s, t) in enumerate(zip(src_tokens, tgt_tokens)):
        if not s or not t:
            raise InputError(f"sentence pair {k + 1} has no tokens on one side", parameter="corpus")
    from .seeded_eflomal import AlignerNotSeedable, check_seeded, seeded_environment

    with tempfile.TemporaryDirectory(prefix="crossalign-eflomal-") as tmp:
        fwd_path, rev_path, proof = Path(tmp) / "fwd", Path(tmp) / "rev", Path(tmp) / "seeded"
        try:
            env: dict[str, str] = {}
            if seed is not None:
                from .cache import default_cache_dir

                env = seeded_environment(seed, cache_dir or default_cache_dir(), proof)
            aligner = eflomal.Aligner(model=model, n_samplers=n_samplers)
            with _environment(env):
                aligner.align([" ".join(s) for s in src_tokens], [" ".join(t) for t in tgt_tokens],
                              links_filename_fwd=str(fwd_path), links_filename_rev=str(rev_path),
                              quiet=True)
            if seed is not None:
                check_seeded(proof)
        except AlignerNotSeedable as err:
            raise InputError(f"{err}; pass --align-seed none to align unseeded (links then vary "
                             "from run to run)", parameter="align_seed") from None
        fwd = read_pharaoh(fwd_path)
        rev = read_pharaoh(rev_path)
    sym = SYMMETRISERS[symmetrise]
    links = [sym(f, r) for f, r in zip(fwd, rev)]
    empty = [k for k, l in enumerate(links) if not l]
    if len(empty) == len(links):
        raise InputError(f"eflomal produced no links for any of {len(links)} sentence pairs (too "
                         "little text, or sentences longer than the aligner handles)",
                         parameter="corpus")
    if empty:
        warnings.warn(f"{len(empty)} of {len(links)} sentence pairs got no links from eflomal "
                      f"(first: pair {empty[0] + 1}); they add no training pairs")
    return links
