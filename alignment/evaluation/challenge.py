"""An offline meta-evaluation of a reference-free metric: for each source, the human reference,
a rule-based machine translation (apertium), a word-by-word translation (a bilingual lexicon)
and meaning-changing perturbations of the reference. A good metric ranks
reference > MT > word-by-word and every perturbation below the reference."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alignment.catalogue import check_choice
from alignment.atomic import write_text
from alignment.data.corpus import read_parallel
from alignment.errors import InputError
from .retrieval import paired_bootstrap
from alignment.data.lexicon import Lexicon, read_lexicon
from .perturb import PERTURBATIONS, perturb, vocabulary
from .w2w import literal_translation

BUILDER_VERSION = 1  # bumped whenever the same inputs would give a different set
CANDIDATES = ("reference", "mt", "literal", *PERTURBATIONS)


@dataclass
class ChallengeSet:
    """Sources and, per source, each candidate translation (None where a perturbation does not
    apply); ``signature`` says how it was built."""

    sources: list[str]
    candidates: dict[str, list[str | None]]
    signature: str
    settings: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.sources)


def apertium_version(pair: str = "spa-eng") -> str:
    """The installed version of the apertium language pair (from dpkg), or 'unknown'. Debian
    names some pairs sorted (spa-eng -> apertium-eng-spa), others as translated (eu-en)."""
    names = dict.fromkeys(["apertium-" + "-".join(sorted(pair.split("-"))), f"apertium-{pair}"])
    for package in names:
        try:
            out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                                 capture_output=True, text=True, check=False)
        except FileNotFoundError:
            return "unknown"
        if out.returncode == 0 and out.stdout.strip():
            return f"{package}={out.stdout.strip()}"
    return "unknown"


def check_apertium(pair: str = "spa-eng") -> None:
    """A clear error, before any work, when apertium or the language pair is missing."""
    if shutil.which("apertium") is None:
        raise InputError("apertium is not installed (Debian: apt-get install apertium-eng-spa, "
                         "or the pair's package; --mt none goes without)", parameter="mt")
    probe = subprocess.run(["apertium", "-u", pair], input="casa\n", capture_output=True,
                           text=True, check=False)
    if probe.returncode != 0 or not probe.stdout.strip():
        raise InputError(f"apertium cannot translate {pair} ({probe.stderr.strip()[:200]}); "
                         f"install its Debian package (apertium-eng-spa for spa-eng), or use "
                         "--mt none", parameter="mt")


def apertium_translate(sentences: list[str], pair: str = "spa-eng") -> list[str]:
    """Rule-based MT of each sentence, one process for all (``-u``: no unknown-word marks)."""
    text = "".join(s.replace("\n", " ") + "\n" for s in sentences)
    run = subprocess.run(["apertium", "-u", pair], input=text, capture_output=True, text=True,
                         check=False)
    if run.returncode != 0:
        raise RuntimeError(f"apertium failed: {run.stderr.strip()[:300]}")
    lines = run.stdout.rstrip("\n").split("\n")
    if len(lines) != len(sentences):
        raise RuntimeError(f"apertium returned {len(lines)} lines for {len(sentences)} sentences")
    return [" ".join(line.replace("#", "").replace("@", "").split()) for line in lines]


def _fingerprint(*parts: object) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\x00")
    return h.hexdigest()[:16]


def build_challenge(src_path: str | Path, ref_path: str | Path, lexicon_path: str | Path | None,
                    n: int | None = None, seed: int = 0, cache_dir: Path | None = None,
                    mt: str = "apertium", apertium_pair: str = "spa-eng") -> ChallengeSet:
    """The challenge set of the first ``n`` (source, reference) pairs, built once and cached
    by content (sources, references, lexicon file, seed, apertium version, builder version).
    ``mt="none"`` (no apertium pair for the language) or no lexicon leave those candidates
    out; the perturbation tests need neither."""
    corpus = read_parallel(src_path, ref_path)
    if n is not None:
        if n < 1:
            raise InputError(f"must be >= 1, got {n}", parameter="n")
        corpus = corpus.subset(list(range(min(n, len(corpus)))), corpus.name)
    check_choice(mt, ("apertium", "none"), "MT system", "mt")
    lexicon_file = Path(lexicon_path) if lexicon_path else None
    if lexicon_file is not None and not lexicon_file.is_file():
        raise InputError("lexicon file not found", path=lexicon_file)
    if mt == "apertium":
        check_apertium(apertium_pair)
    version = apertium_version(apertium_pair) if mt == "apertium" else "none"
    if mt == "apertium" and apertium_pair != "spa-eng":  # 0.3's sets keep their keys
        version = f"{apertium_pair}@{version}"
    lex_digest = hashlib.sha256(lexicon_file.read_bytes()).hexdigest()[:16] \
        if lexicon_file is not None else "none"
    key = _fingerprint(corpus.src, corpus.tgt, lex_digest, seed, version, BUILDER_VERSION)
    settings = {"n": len(corpus), "seed": seed, "mt": version, "lexicon": lex_digest,
                "builder": BUILDER_VERSION}
    sig = "|".join(["challenge", f"b:{BUILDER_VERSION}", f"n:{len(corpus)}", f"seed:{seed}",
                    f"mt:{version}", f"lex:{lex_digest}", f"data:{key}"])
    from alignment.data.vectors import default_cache_dir

    path = (cache_dir or default_cache_dir()) / "challenge" / f"{key}.json"
    if path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored["sources"] == list(corpus.src) and all(
                    isinstance(v, list) and len(v) == len(corpus)
                    for v in stored["candidates"].values()) \
                    and set(stored["candidates"]) == set(CANDIDATES):
                return ChallengeSet(stored["sources"], stored["candidates"], sig, settings)
            warnings.warn(f"challenge cache entry {path.name} is incomplete; building it again")
        except (ValueError, KeyError, TypeError, AttributeError):
            warnings.warn(f"challenge cache entry {path.name} is unreadable; building it again")
    lexicon: Lexicon | None = read_lexicon(lexicon_file) if lexicon_file is not None else None
    rng = np.random.default_rng(seed)
    content, names = vocabulary(corpus.tgt)
    candidates: dict[str, list[str | None]] = {k: [] for k in CANDIDATES}
    candidates["reference"] = list(corpus.tgt)
    candidates["mt"] = apertium_translate(corpus.src, apertium_pair) if mt == "apertium" \
        else [None] * len(corpus)
    candidates["literal"] = [literal_translation(s, lexicon) for s in corpus.src] \
        if lexicon is not None else [None] * len(corpus)
    for ref in corpus.tgt:
        for kind, text in perturb(ref, content, names, rng).items():
            candidates[kind].append(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps({"sources": corpus.src, "candidates": candidates,
                                 "settings": settings}, ensure_ascii=False))
    return ChallengeSet(list(corpus.src), candidates, sig, settings)


def score_challenge(challenge: ChallengeSet, score) -> dict[str, dict[str, np.ndarray]]:
    """Per variant of the metric and per candidate kind, the score of every applicable (source,
    candidate) pair (NaN where the candidate does not apply). ``score(sources, hypotheses)`` is
    called once and returns {variant: scores}, e.g. {"xmover": …, "xmover+lm": …}."""
    flat_src, flat_hyp, where = [], [], []
    for kind in CANDIDATES:
        for i, text in enumerate(challenge.candidates[kind]):
            if text is not None:
                flat_src.append(challenge.sources[i])
                flat_hyp.append(text)
                where.append((kind, i))
    out: dict[str, dict[str, np.ndarray]] = {}
    for variant, values in score(flat_src, flat_hyp).items():
        table = {kind: np.full(len(challenge), np.nan) for kind in CANDIDATES}
        for (kind, i), v in zip(where, np.asarray(values, dtype=np.float64)):
            table[kind][i] = v
        out[variant] = table
    return out


def challenge_outcomes(scores: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per test, a 0/1 outcome per applicable source: 'ranking' (reference > MT > literal),
    'ref>mt', 'ref>literal' (1 − W2W), and per perturbation 'reference > perturbed'."""
    ref, mt, lit = scores["reference"], scores["mt"], scores["literal"]
    has_mt, has_lit = ~np.isnan(mt), ~np.isnan(lit)  # absent where the set has no MT/lexicon
    both = has_mt & has_lit
    out = {"ranking": ((ref[both] > mt[both]) & (mt[both] > lit[both])).astype(float),
           "ref>mt": (ref[has_mt] > mt[has_mt]).astype(float),
           "ref>literal": (ref[has_lit] > lit[has_lit]).astype(float)}
    for kind in PERTURBATIONS:
        ok = ~np.isnan(scores[kind])
        out[kind] = (ref[ok] > scores[kind][ok]).astype(float)
    return out


def summarise(outcomes: dict[str, np.ndarray], n_boot: int = 1000, seed: int = 0) -> dict[str, dict]:
    """Share of successes per test with a percentile bootstrap 95% interval over sources."""
    summary = {}
    for test, o in outcomes.items():
        if len(o) == 0:
            summary[test] = {"share": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0}
            continue
        mean, lo, hi = paired_bootstrap(o, np.zeros_like(o), n=n_boot, seed=seed)
        summary[test] = {"share": mean, "lo": lo, "hi": hi, "n": int(len(o))}
    return summary


def evaluate_challenge(challenge: ChallengeSet, scorer, n_boot: int = 1000,
                       seed: int = 0) -> dict[str, dict[str, dict]]:
    """``evaluate challenge`` for one scorer: per variant (``""``, and ``" ⊕ LM"`` when the
    scorer adds an LM term, whose plain transport scores are the first), each test's share of
    sources the metric ranks as it should, with a bootstrap interval over sources."""
    def score(src: list[str], hyp: list[str]) -> dict[str, np.ndarray]:
        result = scorer.score(src, hyp)
        return {"": result.xmover} if result.lm is None else \
            {"": result.xmover, " ⊕ LM": result.final}

    return {variant: summarise(challenge_outcomes(scores), n_boot, seed)
            for variant, scores in score_challenge(challenge, score).items()}
