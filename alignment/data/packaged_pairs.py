"""X–English sentence pairs from the machine's own packages, for a sentence map or a student
that needs more text than a benchmark's training split: the gettext catalogues of installed
software (what OPUS publishes as its GNOME, KDE and Ubuntu corpora) and LibreOffice's help
pages (its OpenOffice corpus). Every pair keeps its source; pairs are de-duplicated, checked
for length, script and copying, counted per source, and split by id like every corpus here."""
from __future__ import annotations

import codecs
import hashlib
import json
import re
import struct
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from alignment.errors import InputError

SOURCES = ("gettext", "help")
LOCALE_ROOT = Path("/usr/share/locale")
# locale folders of a language code, most specific first (zh: simplified Chinese)
LOCALE_FOLDERS = {"zh": ("zh_CN", "zh_Hans", "zh")}
# the script a language's side must be mostly written in (others: checked for copying only)
SCRIPTS = {"zh": r"[\u4e00-\u9fff\u3400-\u4dbf]", "ja": r"[\u3040-\u30ff\u4e00-\u9fff]",
           "ru": r"[\u0400-\u04ff]", "uk": r"[\u0400-\u04ff]", "bg": r"[\u0400-\u04ff]",
           "kk": r"[\u0400-\u04ff]", "ar": r"[\u0600-\u06ff]", "ne": r"[\u0900-\u097f]",
           "hi": r"[\u0900-\u097f]", "si": r"[\u0d80-\u0dff]", "el": r"[\u0370-\u03ff]",
           "ko": r"[\uac00-\ud7af]", "gu": r"[\u0a80-\u0aff]"}
# languages written with one character a word or syllable: a character counts as this many
# English characters in the length check
WIDE = {"zh": 3.0, "ja": 2.0, "ko": 2.0}
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
_ACCELERATOR = re.compile(r"(?<![\w&])[_&~](?=\w)")
_FORMAT = re.compile(r"%(\d+\$)?[-+ #0]*\d*(\.\d+)?[hlLqjzt]*[diouxXeEfFgGcsp%]|\{\w*\}|\$\{?\w+\}?")
_SPACE = re.compile(r"\s+")


@dataclass
class Pairs:
    """Sentence pairs of one source: ids, X side, English side, and where each came from."""

    ids: list[str] = field(default_factory=list)
    src: list[str] = field(default_factory=list)
    en: list[str] = field(default_factory=list)
    origin: list[str] = field(default_factory=list)  # the package (gettext) or "libreoffice-help"


def read_mo(path: Path) -> list[tuple[str, str]]:
    """(English message, translation) of a compiled gettext catalogue, decoded by the charset
    its header names; plural forms give their first form, a message's context is dropped."""
    data = path.read_bytes()
    if len(data) < 20:
        raise InputError("not a gettext catalogue (too short)", path=path)
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else None
    if order is None:
        raise InputError("not a gettext catalogue (bad magic number)", path=path)
    count, originals, translations = struct.unpack(order + "3I", data[8:20])
    if max(originals, translations) + 8 * count > len(data):
        raise InputError(f"not a gettext catalogue (its tables of {count} messages run past the "
                         f"end of the file, {len(data)} bytes)", path=path)
    raw = []
    for k in range(count):
        n1, o1 = struct.unpack(order + "2I", data[originals + 8 * k: originals + 8 * k + 8])
        n2, o2 = struct.unpack(order + "2I", data[translations + 8 * k: translations + 8 * k + 8])
        if o1 + n1 > len(data) or o2 + n2 > len(data):
            raise InputError(f"not a gettext catalogue (message {k} lies past the end of the "
                             "file)", path=path)
        raw.append((data[o1:o1 + n1], data[o2:o2 + n2]))
    charset = "utf-8"
    for msgid, msgstr in raw:
        if msgid == b"":
            found = re.search(rb"charset=([\w.-]+)", msgstr)
            charset = found.group(1).decode("ascii") if found else charset
    try:
        codecs.lookup(charset)
    except LookupError:
        raise InputError(f"its header names a charset Python cannot decode: {charset!r}", path=path) from None
    out = []
    for msgid, msgstr in raw:
        if not msgid or not msgstr:
            continue
        english = msgid.split(b"\x04")[-1].split(b"\x00")[0].decode(charset, "replace")
        out.append((english, msgstr.split(b"\x00")[0].decode(charset, "replace")))
    return out


def clean_message(text: str) -> str:
    """A UI message as a sentence: keyboard accelerators (``_File``, ``&Open``) and line breaks
    removed, spaces collapsed."""
    return _SPACE.sub(" ", _ACCELERATOR.sub("", text.replace("\\n", " "))).strip()


def pair_problem(src: str, en: str, language: str, max_ratio: float = 2.0,
                 min_words: int = 1) -> str | None:
    """Why a pair is not kept (None: it is): ``empty``, ``short`` (fewer than ``min_words``
    English words), ``untranslated`` (the X side copies the English words), ``length_ratio`` (characters; a
    Chinese one counts as three), 
    ``script`` (the X side is not mostly in its language's script), ``format`` (mostly
    placeholders such as ``%s``)."""
    if not src or not en:
        return "empty"
    words = _WORD.findall(en)
    if len(words) < min_words:
        return "short"
    own = set(_WORD.findall(src.lower()))
    if src == en or (own and own <= set(w.lower() for w in words)):
        return "untranslated"
    letters = _LETTER.findall(src)
    script = SCRIPTS.get(language)
    if script and (not letters or sum(bool(re.match(script, c)) for c in letters) < 0.5 * len(letters)):
        return "script"
    if not 1 / max_ratio <= WIDE.get(language, 1.0) * len(src) / len(en) <= max_ratio:
        return "length_ratio"
    if len(_LETTER.findall(_FORMAT.sub("", en))) < 0.5 * len(en.replace(" ", "")):
        return "format"
    return None


def locale_folder(language: str, root: Path = LOCALE_ROOT) -> Path:
    """The ``LC_MESSAGES`` folder of ``language`` under ``root``."""
    for name in LOCALE_FOLDERS.get(language, (language,)):
        if (root / name / "LC_MESSAGES").is_dir():
            return root / name / "LC_MESSAGES"
    raise InputError(f"no gettext catalogues for '{language}' in {root} (install software "
                     f"translated into it, or give --locale-root)", parameter="locale_root")


def owners(files: list[Path]) -> dict[str, tuple[str, str, str]]:
    """File → (Debian package, version, licence) where dpkg knows the file; the licence is the
    first ``License:`` of the package's machine-readable copyright file, else where to read it."""
    out: dict[str, tuple[str, str, str]] = {}
    try:
        found = subprocess.run(["dpkg", "-S", *map(str, files)], capture_output=True, text=True)
    except OSError:
        return out
    packages: dict[str, tuple[str, str]] = {}
    for line in found.stdout.splitlines():
        package, _, path = line.partition(": ")
        package = package.split(":")[0].split(",")[0].strip()
        if package not in packages:
            version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                                     capture_output=True, text=True).stdout.strip()
            copyright_file = Path("/usr/share/doc") / package / "copyright"
            licence = f"see {copyright_file}"
            try:
                first = re.search(r"^License:\s*(\S.*)$", copyright_file.read_text("utf-8", "replace"), re.M)
                licence = first.group(1).strip() if first else licence
            except OSError:
                pass
            packages[package] = (version, licence)
        out[path.strip()] = (package, *packages[package])
    return out


def gettext_pairs(language: str, root: Path = LOCALE_ROOT) -> tuple[Pairs, dict]:
    """Every message of every catalogue of ``language`` under ``root``, and the provenance of
    each catalogue (package, version, licence)."""
    files = sorted(locale_folder(language, root).glob("*.mo"))
    known = owners(files)
    pairs, provenance = Pairs(), {}
    broken: list[str] = []
    for path in files:
        package, version, licence = known.get(str(path), (path.stem, "unknown", "unknown"))
        provenance[path.name] = {"package": package, "version": version, "licence": licence}
        try:  # each catalogue alone: one broken file among the machine's does not stop the rest
            messages = read_mo(path)
        except (InputError, OSError) as err:
            broken.append(str(err))
            provenance[path.name]["skipped"] = str(err)
            continue
        for english, translated in messages:
            key = hashlib.sha256(english.encode("utf-8", "surrogatepass")).hexdigest()[:12]
            pairs.ids.append(f"gettext/{path.stem}/{key}")
            pairs.src.append(clean_message(translated))
            pairs.en.append(clean_message(english))
            pairs.origin.append(package)
    if broken:
        warnings.warn(f"{len(broken)} of {len(files)} gettext catalogues of '{language}' could not "
                      f"be read and were skipped (first: {broken[0]})")
    return pairs, provenance


def help_page_pairs(language: str, root: Path | None, fetch: bool) -> tuple[Pairs, dict]:
    """LibreOffice's help paragraphs present in both languages (fetched into the cache unless
    ``root`` is given)."""
    from .help_pages import help_source, package_name, read_help

    base, versions = help_source(language, root, fetch)
    xx, en = read_help(base, language), read_help(base, "en")
    pairs = Pairs()
    for key in sorted(k for k in xx if k in en):
        pairs.ids.append(f"help/{key}"), pairs.src.append(xx[key]), pairs.en.append(en[key])
        pairs.origin.append("libreoffice-help")
    return pairs, {side: {"package": package_name(side),
                          "version": versions.get(package_name(side), "unknown"),
                          "licence": "MPL-2.0 (some pages Apache-2.0)"} for side in (language, "en")}


def pivot_pairs(x: Pairs, y: Pairs) -> tuple[Pairs, Pairs]:
    """X–Y pairs through their shared English: the messages (same catalogue and English msgid)
    or help paragraphs (same page and paragraph id) both languages translate. Returns the X side
    against its English and the Y side against the same English, aligned by id (the first
    translation of an id kept on each side)."""
    first_y: dict[str, int] = {}
    for k, key in enumerate(y.ids):
        first_y.setdefault(key, k)
    out_x, out_y, seen = Pairs(), Pairs(), set()
    for k, key in enumerate(x.ids):
        j = first_y.get(key)
        if j is None or key in seen or x.en[k] != y.en[j]:
            continue
        seen.add(key)
        for side, pairs, i in ((out_x, x, k), (out_y, y, j)):
            side.ids.append(key), side.src.append(pairs.src[i]), side.en.append(pairs.en[i])
            side.origin.append(pairs.origin[i])
    return out_x, out_y


def build_parallel_corpus(out_dir: str | Path, language: str, sources: tuple[str, ...] = SOURCES,
                          n_test: int = 1000, n_dev: int = 1000, seed: int = 0,
                          max_ratio: float = 2.0, min_words: int = 3,
                          locale_root: str | Path = LOCALE_ROOT, help_root: str | Path | None = None,
                          fetch: bool = True, target: str = "en") -> dict:
    """``{split}.XX`` / ``{split}.YY`` / ``{split}.ids`` and ``report.json`` (settings, each
    source's provenance and licence, pairs kept per source, what was dropped and why) from
    ``sources``; the first source to give an X sentence keeps it (no sentence twice). ``target``
    other than ``en``: X–Y pairs pivoting on the English both translate (``pivot_pairs``), each
    side checked against that English as an X–English pair would be."""
    from alignment.atomic import write_text

    from .corpus import ParallelCorpus
    from .splits import check_corpus_folder, check_split_settings, write_splits

    unknown = [s for s in sources if s not in SOURCES]
    if unknown or not sources:
        raise InputError(f"sources must be among {', '.join(SOURCES)}, got {list(sources) or 'none'}",
                         parameter="sources")
    if len(set(sources)) != len(sources):
        raise InputError(f"a source is given twice: {','.join(sources)}", parameter="sources")
    check_split_settings(n_test, n_dev, max_ratio, min_words)
    if target == language:
        raise InputError(f"a pair needs two languages, got {language}-{target}", parameter="pair")
    pivot = target != "en"
    settings = {"pair": f"{language}-{target}", "source": "parallel", "sources": list(sources),
                "seed": seed, "n_test": n_test, "n_dev": n_dev, "max_ratio": max_ratio,
                "min_words": min_words, **({"pivot": "en"} if pivot else {})}
    out = Path(out_dir)
    check_corpus_folder(out, settings)

    def read(source: str, lang: str) -> tuple[Pairs, dict]:
        if source == "gettext":
            return gettext_pairs(lang, Path(locale_root))
        return help_page_pairs(lang, help_root, fetch)

    kept, kept_tgt, provenance, counts, dropped = Pairs(), [], {}, {}, {}
    seen: set[str] = set()  # X sentences and ids kept so far
    for source in sources:
        pairs, provenance[source] = read(source, language)
        other = None
        if pivot:
            y, provenance[f"{source}:{target}"] = read(source, target)
            pairs, other = pivot_pairs(pairs, y)
        counts[source], dropped[source] = 0, {}
        for k, (key, a, b, origin) in enumerate(zip(pairs.ids, pairs.src, pairs.en, pairs.origin)):
            reason = pair_problem(a, b, language, max_ratio, min_words)
            if reason is None and other is not None:
                reason = pair_problem(other.src[k], b, target, max_ratio, min_words)
                reason = reason and f"{target}:{reason}"
            reason = reason or ("repeated" if a in seen or key in seen else None)
            if reason:
                dropped[source][reason] = dropped[source].get(reason, 0) + 1
                continue
            seen.update((a, key))
            kept.ids.append(key), kept.src.append(a), kept.en.append(b), kept.origin.append(origin)
            kept_tgt.append(other.src[k] if other is not None else b)
            counts[source] += 1
    if len(kept.ids) <= n_test + n_dev:
        raise InputError(f"only {len(kept.ids)} pairs for {language}-{target} from "
                         f"{', '.join(sources)}: too few for {n_test} test and {n_dev} dev pairs "
                         "(lower --n-test/--n-dev)", parameter="pair")
    corpus = ParallelCorpus(kept.src, kept_tgt, "parallel", kept.ids)
    splits = write_splits(corpus, out, language, n_test, n_dev, seed, target)
    by_origin: dict[str, int] = {}
    for origin in kept.origin:
        by_origin[origin] = by_origin.get(origin, 0) + 1
    report = {"settings": settings, "provenance": provenance, "kept": counts,
              "kept_by_package": dict(sorted(by_origin.items(), key=lambda kv: -kv[1])),
              "dropped": dropped, "splits": splits}
    write_text(out / "report.json", json.dumps(report, indent=2, ensure_ascii=False))
    return report
