"""Reading a clone of a public data repository safely: the folder is checked to be the expected
repository before anything is read, text files fail with file and line, tarballs are read in
memory and refused when a member names a path outside its folder, and every input is hashed
for the provenance record."""
from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
from pathlib import Path, PurePosixPath

from alignment.errors import InputError


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chosen_pairs(pairs: list[str] | None, known: tuple[str, ...] | list[str], what: str
                 ) -> list[str]:
    """The pairs a data builder makes (``None``: all it knows), each refused unless ``what``
    (the benchmark, as the message names it) has it — before anything is read."""
    chosen = list(pairs or known)
    for pair in chosen:
        if pair not in known:
            raise InputError(f"{what} has no pair '{pair}' (it has: {', '.join(known)})",
                             parameter="pairs")
    return chosen


def clone_folder(source: str | Path | None, repository: str, marker: str, name: str) -> Path:
    """The clone to read: ``source`` when given (it must hold ``marker``); else, with
    ``CROSSALIGN_ALLOW_DOWNLOAD=1``, a shallow ``git clone`` of ``repository`` into the user
    cache; else an error that says how to get it."""
    if source is None:
        if os.environ.get("CROSSALIGN_ALLOW_DOWNLOAD") != "1":
            raise InputError(f"give --from CLONE, a clone of https://github.com/{repository} "
                             f"(git clone https://github.com/{repository} CLONE), or set "
                             "CROSSALIGN_ALLOW_DOWNLOAD=1 to clone it into the cache",
                             parameter="from")
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "crossalign" / \
            repository.replace("/", "+")
        if not (cache / marker).is_file():
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_name(cache.name + ".partial")
            done = subprocess.run(["git", "clone", "--depth", "1", f"https://github.com/{repository}",
                                   str(tmp)], capture_output=True, text=True)
            if done.returncode != 0:
                raise InputError(f"git clone of {repository} failed: "
                                 f"{done.stderr.strip().splitlines()[-1:]}", parameter="from")
            tmp.rename(cache)
        source = cache
    folder = Path(source).expanduser()
    if not folder.is_dir():
        raise InputError("folder not found", parameter="from")
    if not (folder / marker).is_file():
        raise InputError(f"{folder} is not a clone of {repository} (no {marker}); {name} needs "
                         f"https://github.com/{repository}", parameter="from")
    return folder


def commit_of(folder: Path) -> str | None:
    """The checked-out commit of a git clone, or None for a plain folder."""
    if not (folder / ".git").exists():
        return None
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    return done.stdout.strip() or None if done.returncode == 0 else None


def text_lines(path: Path, allow_empty: bool = True) -> list[str]:
    """A UTF-8 text file's lines (``InputError`` with the line on bad bytes)."""
    from alignment.data.corpus import read_lines

    if not path.is_file():
        raise InputError("file not found (is the clone complete?)", path=path)
    return read_lines(path, allow_empty=allow_empty)


def tar_members(path: Path) -> dict[str, bytes]:
    """Every regular file of a .tar.gz, by its path inside the archive, read in memory. A
    member that is absolute, climbs out with ``..``, or is a link or device is refused before
    anything is used: nothing is ever written where an archive says."""
    if not path.is_file():
        raise InputError("file not found (is the clone complete?)", path=path)
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(path, "r:gz") as archive:
            members = archive.getmembers()
            for member in members:
                name = PurePosixPath(member.name)
                if name.is_absolute() or ".." in name.parts or "\\" in member.name:
                    raise InputError(f"member '{member.name}' names a path outside its folder; "
                                     "refused", path=path)
                if member.issym() or member.islnk() or member.isdev() or member.isfifo():
                    raise InputError(f"member '{member.name}' is a link or device; refused",
                                     path=path)
            for member in members:
                if member.isfile():
                    handle = archive.extractfile(member)
                    files[member.name] = handle.read() if handle else b""
    except (tarfile.TarError, EOFError, OSError) as err:
        raise InputError(f"not a readable .tar.gz ({err})", path=path) from None
    return files


def member_lines(files: dict[str, bytes], suffix: str, archive: Path) -> tuple[str, list[str]]:
    """The one member whose name ends with ``suffix``, decoded as UTF-8 lines."""
    found = [n for n in files if n.endswith(suffix)]
    if len(found) != 1:
        raise InputError(f"expected one member ending in '{suffix}', found {len(found)}",
                         path=archive)
    raw = files[found[0]]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise InputError(f"{found[0]} is not valid UTF-8", path=archive, line=line) from None
    return found[0], io.StringIO(text.lstrip("\ufeff")).read().splitlines()


def member_columns(files: dict[str, bytes], suffixes: dict[str, str], archive: Path
                   ) -> dict[str, list[str]]:
    """Several line-parallel members of one archive (``name -> suffix``: each read with
    ``member_lines``), refused unless they have one length."""
    columns = {name: member_lines(files, suffix, archive)[1] for name, suffix in suffixes.items()}
    counts = {k: len(v) for k, v in columns.items()}
    if len(set(counts.values())) != 1:
        raise InputError(f"the files differ in length: {counts}", path=archive)
    return columns


def write_data_folder(out: str | Path, files: dict[str, str], benchmark: str, repository: str,
                      clone: Path, licence: str, pairs: dict, inputs: dict[str, str]) -> dict:
    """Write ``files`` (relative path → text) and ``provenance.json`` — the repository, its
    commit, licence, per-pair counts, the SHA-256 of every input and output, a signature — as
    one folder that appears whole or not at all; returns the record."""
    import json

    from alignment.atomic import atomic_dir
    from alignment.version import __version__

    report = {"benchmark": benchmark, "repository": f"https://github.com/{repository}",
              "commit": commit_of(clone), "licence": licence, "pairs": pairs,
              "inputs_sha256": dict(sorted(inputs.items())),
              "signature": f"crossalign|data:{benchmark}|v:{__version__}"}

    with atomic_dir(out, "provenance.json") as tmp:
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text, encoding="utf-8")
        report["outputs_sha256"] = {rel: sha256(tmp / rel) for rel in sorted(files)}
        (tmp / "provenance.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def normalised(text: str) -> str:
    """A sentence as the leakage check compares it: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())
