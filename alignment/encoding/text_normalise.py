"""TEXT (Zhao et al. 2021): input normalisation towards the pivot's surface order — split
contractions (del → de el, al → a el) and put adjectives before their noun — from Apertium's
Spanish morphological analyser and HMM tagger (Debian ``apertium-eng-spa``), run offline."""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from alignment.catalogue import check_choice
from alignment.errors import InputError

APERTIUM_SPA_DIR = "/usr/share/apertium/apertium-eng-spa"
RULES = ("contractions", "noun-adj")
_ESCAPE = re.compile(r"([\[\]\\^$/@<>{}])")
_SPLIT = {"al": "a el", "del": "de el"}


@dataclass(frozen=True)
class LexicalUnit:
    """One tagged unit of the stream: its surface text, its analysis parts (lemma, tags) and
    the blank text that preceded it."""

    surface: str
    parts: tuple[tuple[str, tuple[str, ...]], ...]
    blank: str

    @property
    def pos(self) -> str:
        return self.parts[0][1][0] if self.parts and self.parts[0][1] else ""


def _split_unescaped(text: str, sep: str) -> list[str]:
    out, cur, k = [], [], 0
    while k < len(text):
        c = text[k]
        if c == "\\" and k + 1 < len(text):
            cur.append(text[k:k + 2])
            k += 2
            continue
        if c == sep:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        k += 1
    out.append("".join(cur))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _analysis(text: str) -> tuple[str, tuple[str, ...]]:
    lemma, _, tags = text.partition("<")
    return _unescape(lemma), tuple(t for t in ("<" + tags).replace(">", "").split("<") if t) \
        if tags else ()


def parse_stream(line: str) -> tuple[list[LexicalUnit], str]:
    """The lexical units of one line of tagger output (``-p``: surface forms shown) and the
    blank text after the last one."""
    units, blank, k = [], [], 0
    while k < len(line):
        c = line[k]
        if c == "\\" and k + 1 < len(line):
            blank.append(line[k + 1])
            k += 2
        elif c == "^":
            end, j = None, k + 1
            while j < len(line):
                if line[j] == "\\":
                    j += 2
                    continue
                if line[j] == "$":
                    end = j
                    break
                j += 1
            if end is None:
                raise ValueError(f"unterminated lexical unit in tagger output: {line[k:k + 60]!r}")
            surface, *analyses = _split_unescaped(line[k + 1:end], "/")
            first = analyses[0] if analyses else surface
            parts = tuple(_analysis(p) for p in _split_unescaped(first, "+")) \
                if not first.startswith("*") else ()
            units.append(LexicalUnit(_unescape(surface), parts, "".join(blank)))
            blank, k = [], end + 1
        else:
            blank.append(c)
            k += 1
    return units, "".join(blank)


def _match_case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _expand(unit: LexicalUnit) -> str:
    """A unit's text with preposition + article contractions split."""
    if len(unit.parts) >= 2 and unit.parts[0][1][:1] == ("pr",) and unit.parts[1][1][:1] == ("det",):
        return " ".join([_match_case(unit.parts[0][0].lower(), unit.surface)]
                        + [p[0].lower() for p in unit.parts[1:]])
    if " " in unit.surface:  # multiword units such as "al lado" hide a contraction too
        return " ".join(_match_case(_SPLIT[w.lower()], w) if w.lower() in _SPLIT else w
                        for w in unit.surface.split(" "))
    return unit.surface


def normalise_units(units: list[LexicalUnit], tail: str, rules: tuple[str, ...] = RULES) -> str:
    """Rebuild the sentence from its units with ``rules`` applied."""
    texts = [_expand(u) if "contractions" in rules else u.surface for u in units]
    order = list(range(len(units)))
    if "noun-adj" in rules:
        k = 0
        while k < len(units):
            if units[k].pos == "n":
                j = k + 1
                while j < len(units) and units[j].pos == "adj" and not units[j].blank.strip():
                    j += 1
                if j > k + 1:  # noun followed by its adjectives: adjectives first
                    order[k:j] = list(range(k + 1, j)) + [k]
                    k = j
                    continue
            k += 1
    return "".join(units[k].blank + texts[order[k]] for k in range(len(units))) + tail


@dataclass(frozen=True)
class SpanishTextNormaliser:
    """TEXT for Spanish with the pivot English: contractions split, noun–adjective reordered.
    ``settings()`` goes into signatures and exports (it names the tagger data's hash)."""

    data_dir: str = APERTIUM_SPA_DIR
    rules: tuple[str, ...] = RULES
    lang: str = "es"

    def __post_init__(self) -> None:
        for rule in self.rules:
            check_choice(rule, RULES, "TEXT rule", "text_rules")

    def files(self) -> tuple[Path, Path]:
        return Path(self.data_dir) / "spa-eng.automorf.bin", Path(self.data_dir) / "spa-eng.prob"

    def check(self) -> None:
        """Clear error when the tagger is not installed (before any expensive work)."""
        missing = [tool for tool in ("lt-proc", "apertium-tagger") if shutil.which(tool) is None]
        missing += [str(f) for f in self.files() if not f.is_file()]
        if missing:
            raise InputError("TEXT normalisation for Spanish needs Apertium's Spanish tagger "
                             f"(missing: {', '.join(missing)}); install it with "
                             "`apt-get install apertium-eng-spa`", parameter="text")

    @cached_property
    def data_hash(self) -> str:
        h = hashlib.sha256()
        for f in self.files():
            h.update(f.read_bytes())
        return h.hexdigest()[:12]

    def settings(self) -> dict:
        self.check()
        return {"lang": self.lang, "tagger": f"apertium-spa#{self.data_hash}",
                "rules": list(self.rules)}

    def describe(self) -> str:
        from alignment.signature import text_description

        return str(text_description(self.settings()))

    def __call__(self, sentences: list[str]) -> list[str]:
        """Normalised sentences, one per input sentence (one tagger run for all of them)."""
        self.check()
        if not sentences:
            return []
        morph, prob = self.files()
        text = "".join(_ESCAPE.sub(r"\\\1", " ".join(s.split())) + "\n" for s in sentences)
        analysed = _run(["lt-proc", str(morph)], text.encode("utf-8"))
        tagged = _run(["apertium-tagger", "-g", "-p", str(prob)], analysed)
        lines = tagged.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) != len(sentences):
            raise RuntimeError(f"the tagger returned {len(lines)} lines for {len(sentences)} "
                               "sentences")
        return [normalise_units(*parse_stream(line), rules=self.rules) for line in lines]


def _run(command: list[str], data: bytes) -> bytes:
    done = subprocess.run(command, input=data, capture_output=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{command[0]} failed: {done.stderr.decode(errors='replace')[:300]}")
    return done.stdout


def text_normaliser(settings: dict | None) -> SpanishTextNormaliser | None:
    """The normaliser that ``settings`` (from ``settings()``, an export or a recipe) describes."""
    if not settings:
        return None
    if settings.get("lang", "es") != "es":
        raise InputError(f"TEXT normalisation exists for Spanish only, not '{settings['lang']}'",
                         parameter="text")
    norm = SpanishTextNormaliser(rules=tuple(settings.get("rules", RULES)))
    norm.check()
    expected = str(settings.get("tagger", "")).partition("#")[2]
    if expected and expected != norm.data_hash:
        raise InputError(f"the installed Apertium Spanish data (#{norm.data_hash}) differs from "
                         f"the one used at training time (#{expected})", parameter="text")
    return norm
