"""X–English pairs from LibreOffice's help pages (Debian's ``libreoffice-help-*``, MPL-2.0): the
same pages in ~35 languages, every paragraph and heading keyed by an id that is identical
across languages. Basque (a language isolate) is the pair the Bibles do not give."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from alignment.errors import InputError

ENGLISH = "en-US"
LANGUAGE_FOLDERS = {"en": ENGLISH, "zh": "zh-CN"}  # ISO code -> the package's folder (most are the code)
_ELEMENT = re.compile(r'<(p|h[1-6]|td|li|span)\b[^>]*\bid="((?:par|hd)_id\w+)"[^>]*>(.*?)</\1>',
                      re.S)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def package_name(language: str) -> str:
    return f"libreoffice-help-{LANGUAGE_FOLDERS.get(language, language).lower()}"


def default_root() -> Path:
    """Where ``fetch_help`` unpacks the packages (the cache)."""
    from .cache import default_cache_dir

    return default_cache_dir() / "libreoffice-help"


def fetch_help(language: str, root: Path) -> dict[str, str]:
    """Download the language's and English's help packages with ``apt-get download`` and unpack
    them with ``dpkg -x`` (installing them would pull LibreOffice itself); returns the versions."""
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise InputError("fetching the help pages needs Debian's apt-get and dpkg-deb; or give "
                         "--help-root, a folder holding help/<language>/text/...",
                         parameter="help_root")
    versions = {}
    with tempfile.TemporaryDirectory() as tmp:
        for package in (package_name(language), package_name("en")):
            print(f"crossalign: fetching {package} (apt-get download)", file=sys.stderr, flush=True)
            done = subprocess.run(["apt-get", "download", package], cwd=tmp, capture_output=True,
                                  text=True)
            if done.returncode != 0:
                raise InputError(f"apt-get download {package} failed: "
                                 f"{(done.stderr or done.stdout).strip().splitlines()[-1:]} "
                                 "(run apt-get update first?)", parameter="pair")
            deb = next(Path(tmp).glob(f"{package}_*.deb"))
            versions[package] = subprocess.run(["dpkg-deb", "-f", str(deb), "Version"],
                                               capture_output=True, text=True).stdout.strip()
            unpacked = Path(tmp) / "x"
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        root.mkdir(parents=True, exist_ok=True)
        for folder in (unpacked / "usr" / "share" / "libreoffice" / "help").iterdir():
            if folder.is_dir() and not (root / folder.name).exists():
                shutil.copytree(folder, root / folder.name)
    (root / f"versions.{language}.json").write_text(json.dumps(versions, indent=1))
    return versions


def paragraph_text(body: str) -> str:
    return _SPACE.sub(" ", html.unescape(_TAG.sub(" ", body))).strip()


def read_help(root: Path, language: str) -> dict[str, str]:
    """``page#paragraph id`` -> plain text for every keyed paragraph and heading."""
    folder = root / LANGUAGE_FOLDERS.get(language, language) / "text"
    if not folder.is_dir():
        raise InputError(f"no help pages for '{language}' in {root} (crossalign data help "
                         f"--pair {language}-en --fetch gets them)", parameter="help_root")
    out: dict[str, str] = {}
    for page in sorted(folder.rglob("*.html")):
        rel = page.relative_to(folder).as_posix()
        for _, key, body in _ELEMENT.findall(page.read_text(encoding="utf-8")):
            out[f"{rel}#{key}"] = paragraph_text(body)
    return out


def help_pairs(xx: dict[str, str], en: dict[str, str], max_ratio: float = 2.0
               ) -> tuple[list[str], list[str], list[str], dict[str, int]]:
    """(ids, source texts, English texts, what was dropped): paragraphs present in both,
    translated (not the English left as is), of a sane length ratio, each distinct pair once
    (help pages repeat boilerplate; a repeat would put one pair in two splits)."""
    dropped = {"empty": 0, "untranslated": 0, "length_ratio": 0, "repeated": 0}
    seen: set[tuple[str, str]] = set()
    ids, src, tgt = [], [], []
    for key in sorted(k for k in xx if k in en):
        a, b = xx[key], en[key]
        reason = ("empty" if not a or not b else "untranslated" if a == b
                  else "length_ratio" if not 1 / max_ratio <= len(a) / len(b) <= max_ratio
                  else "repeated" if (a, b) in seen else None)
        if reason:
            dropped[reason] += 1
            continue
        seen.add((a, b))
        ids.append(key), src.append(a), tgt.append(b)
    return ids, src, tgt, dropped


def help_source(language: str, root: str | Path | None, fetch: bool) -> tuple[Path, dict]:
    """The folder holding the help pages of ``language`` and English (fetched into the cache
    first when ``root`` is not given, ``fetch`` is true and they are missing) and the package
    versions recorded when they were fetched."""
    base = Path(root) if root else default_root()
    if not (base / LANGUAGE_FOLDERS.get(language, language)).is_dir():
        if root or not fetch:
            read_help(base, language)  # the error naming the missing folder
        fetch_help(language, base)
    versions_file = base / f"versions.{language}.json"
    return base, json.loads(versions_file.read_text()) if versions_file.is_file() else {}


def build_help_corpus(out_dir: str | Path, language: str, n_test: int = 1000, n_dev: int = 1000,
                      seed: int = 0, max_ratio: float = 2.0, root: str | Path | None = None,
                      fetch: bool = True) -> dict:
    """Build ``{split}.XX`` / ``{split}.en`` / ``{split}.ids`` and ``report.json`` from the help
    pages (fetched into the cache first when ``root`` is not given and they are missing), with
    the Bible's split rule: a paragraph's split depends only on its id and the seed."""
    from alignment.atomic import write_text

    from .corpus import ParallelCorpus
    from .splits import check_corpus_folder, check_split_settings, write_splits

    check_split_settings(n_test, n_dev, max_ratio)
    settings = {"pair": f"{language}-en", "source": "help", "seed": seed, "n_test": n_test,
                "n_dev": n_dev, "max_ratio": max_ratio}
    check_corpus_folder(Path(out_dir), settings)
    base, versions = help_source(language, root, fetch)
    ids, src, tgt, dropped = help_pairs(read_help(base, language), read_help(base, "en"),
                                        max_ratio)
    corpus = ParallelCorpus(src, tgt, "help", ids)
    out = Path(out_dir)
    splits = write_splits(corpus, out, language, n_test, n_dev, seed)
    report = {"settings": settings, "provenance": {
        side: {"package": package_name(side), "version": versions.get(package_name(side),
                                                                       "unknown"),
               "licence": "MPL-2.0 (some pages Apache-2.0)", "text": "LibreOffice help pages"}
        for side in (language, "en")}, "kept": len(ids), "dropped": dropped, "splits": splits}
    write_text(out / "report.json", json.dumps(report, indent=2))
    return report
