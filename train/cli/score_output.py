"""What ``crossalign score`` prints: one system's segments, or several systems side by side with
paired-bootstrap differences from the first, as text, JSON or TSV — always with the signature."""
from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Difference:
    """A system's mean segment-score difference from the first system and its bootstrap
    interval (``level``: its coverage)."""

    mean: float
    low: float
    high: float
    level: float = 0.95

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "level": self.level}

    def clear_of_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def paired_differences(results, n: int, seed: int) -> list[Difference | None]:
    """Per system: ``None`` for the first, then its paired-bootstrap difference from the first
    (the same resampled segments for every system)."""
    from alignment.evaluation.retrieval import paired_bootstrap

    first = results[0].final
    return [None] + [Difference(*paired_bootstrap(r.final, first, n=n, seed=seed))
                     for r in results[1:]]


def _segment_fields(result) -> dict:
    """Each segment's score and every weighed term's own values (``terms``, by name; the
    ``xmover`` and ``lm`` fields of before kept where an LM weighs)."""
    out = {"segments": [float(v) for v in result.final]}
    if result.lm is not None:  # the parts (no XMoverScore where its weight is 0)
        if result.xmover is not None:
            out["xmover"] = [float(v) for v in result.xmover]
        out["lm"] = [float(v) for v in result.lm]
    out["terms"] = {name: [float(v) for v in values] for name, values in result.values.items()}
    return out


def xm_text(result, k: int | None = None) -> str:
    """XMoverScore of segment ``k`` (None: the mean) for a table; empty where it was left out."""
    if result.xmover is None:
        return ""
    return f"{(result.xmover.mean() if k is None else result.xmover[k]):.6f}"


def render(results, names: list[str], fmt: str, score_only: bool,
           differences: list[Difference | None] | None = None, bootstrap: dict | None = None
           ) -> str:
    """The scores as ``text``, ``json`` or ``tsv``; ``score_only``: the system scores alone.
    One system keeps the single-system layouts (text: one score a line, then ``# mean``)."""
    differences = differences or [None] * len(results)
    signature = results[0].signature
    if fmt == "json":
        return _json(results, names, score_only, differences, bootstrap, signature)
    if score_only:
        return "\n".join(f"{r.system:.6f}" for r in results)
    if fmt == "tsv":
        return _tsv(results, names, differences, signature)
    if len(results) == 1:
        return "\n".join([*(f"{v:.6f}" for v in results[0].final),
                          f"# mean {results[0].system:.6f}  {signature}"])
    return _table(results, names, differences, bootstrap, signature)


def _json(results, names, score_only, differences, bootstrap, signature) -> str:
    def entry(result, name, diff) -> dict:
        out = {"hyp": name, "system": result.system, "empty_hypotheses": result.empty_hypotheses}
        if diff is not None:
            out["difference"] = diff.as_dict()
        if not score_only:
            out.update(_segment_fields(result))
        return out

    if len(results) == 1:
        out = {"signature": signature, "n": len(results[0].final),
               **entry(results[0], names[0], None)}
    else:
        out = {"signature": signature, "n": len(results[0].final),
               "systems": [entry(r, n, d) for r, n, d in zip(results, names, differences)]}
        if bootstrap is not None:
            out["paired_bootstrap"] = bootstrap
    return json.dumps(out, indent=None if score_only else 1, ensure_ascii=False)


def _tsv(results, names, differences, signature) -> str:
    lm = results[0].lm is not None
    compare = any(d is not None for d in differences)
    header = ["system", "segment", "score", *(["xmover", "lm"] if lm else []),
              *(["difference", "low", "high"] if compare else [])]
    rows = ["\t".join(header)]
    for result, name, diff in zip(results, names, differences):
        blank = [""] * (3 if compare else 0)
        for k, v in enumerate(result.final):
            extra = [xm_text(result, k), f"{result.lm[k]:.6f}"] if lm else []
            rows.append("\t".join([name, str(k + 1), f"{v:.6f}", *extra, *blank]))
        summary = [xm_text(result), f"{result.lm.mean():.6f}"] if lm else []
        if compare:
            summary += [f"{diff.mean:.6f}", f"{diff.low:.6f}", f"{diff.high:.6f}"] if diff \
                else blank
        rows.append("\t".join([name, "mean", f"{result.system:.6f}", *summary]))
    rows.append(f"# {signature}")
    return "\n".join(rows)


def _table(results, names, differences, bootstrap, signature) -> str:
    width = max(len("system"), *(len(n) for n in names))
    compare = bootstrap is not None
    level = int(round(100 * (bootstrap or {}).get("level", 0.95)))
    head = f"{'system':<{width}}  {'score':>9}" + (
        f"  {'vs first':>9}  {level}% interval" if compare else "")
    lines = [head]
    for result, name, diff in zip(results, names, differences):
        line = f"{name:<{width}}  {result.system:9.6f}"
        if diff is not None:
            mark = "  *" if diff.clear_of_zero() else ""
            line += f"  {diff.mean:+9.6f}  [{diff.low:+.6f}, {diff.high:+.6f}]{mark}"
        lines.append(line)
    if compare:
        lines.append(f"# paired bootstrap: {bootstrap['n']} resamples of the "
                     f"{len(results[0].final)} segments, seed {bootstrap['seed']}; * = the "
                     "interval excludes 0")
    lines.append(f"# {signature}")
    return "\n".join(lines)


def render_words(result, explained: list, fmt: str, signature: str, threshold: float) -> str:
    """One system's sentence scores with its word scores: ``text`` (each score, a tab, the
    hypothesis with [[words]] scoring above ``threshold`` marked), ``json`` (the sentence
    fields and ``words``: per segment the words and their scores, both sides) or ``tsv`` (a
    row a word: segment, side, index, word, score); the word signature last."""
    if fmt == "json":
        out = {"signature": result.signature, "word_signature": signature,
               "n": len(result.final), "system": result.system,
               "empty_hypotheses": result.empty_hypotheses, **_segment_fields(result),
               "words": [{"hyp": w.words, "hyp_scores": [round(float(v), 6) for v in w.scores],
                          "src": w.src_words,
                          "src_scores": [round(float(v), 6) for v in w.src_scores]}
                         for w in explained]}
        return json.dumps(out, indent=1, ensure_ascii=False)
    if fmt == "tsv":
        rows = ["segment\tside\tindex\tword\tscore"]
        for k, w in enumerate(explained, start=1):
            for side, words, scores in (("hyp", w.words, w.scores), ("src", w.src_words, w.src_scores)):
                rows += [f"{k}\t{side}\t{i + 1}\t{word}\t{v:.6f}"
                         for i, (word, v) in enumerate(zip(words, scores))]
        rows.append(f"# {signature}")
        return "\n".join(rows)
    lines = []
    for value, w in zip(result.final, explained):
        marked = " ".join(f"[[{word}]]" if v > threshold else word
                          for word, v in zip(w.words, w.scores))
        lines.append(f"{value:.6f}\t{marked}")
    lines.append(f"# mean {result.system:.6f}  {result.signature}")
    lines.append(f"# words: {signature}")
    return "\n".join(lines)
