"""Where a crossalign command spends its time: a sampled profile (py-spy's raw format, one
collapsed stack and its sample count a line) summed into the stages of scoring.

    pip install py-spy
    py-spy record -r 20 --format raw -o wmt17.txt -- crossalign evaluate wmt17 \\
        --encoder multilingual-e5-small-q4 exports/wmt17 --lm smollm2-135m --consensus
    python benchmarks/profile_summary.py wmt17.txt --rate 20

Prints seconds and shares per stage and writes JSON beside the profile (``--out``). A sample
counts for the first stage, in the order below, whose function is on its stack."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

# (stage, a function name on the stack), first match wins: the order puts a stage's own work
# before the loading it may trigger lazily
STAGES = (
    ("LM: loading", "LanguageModelScorer.model"),
    ("LM: loading", "LanguageModelScorer.__init__"),
    ("LM: forward", "LanguageModelScorer.score"),
    ("encoder: loading weights", "Encoder._weights"),
    ("encoder: loading weights", "Encoder._load"),
    ("sentence term: encoder forward", "SentenceSimilarity.vectors"),
    ("tokens: encoder forward", "Encoder._forward"),
    ("tokens: tokenising, pooling", "Encoder.encode_tokens"),
    ("n-grams and the map on token vectors", "XMoverScorer._prepare"),
    ("cost matrices", "batched_costs"),
    ("transport (exact EMD)", "_solve"),
    ("consensus (chrF)", "consensus_scores"),
    ("agreement, bootstrap", "segment_agreement"),
    ("loading tokenizers, configs, exports", "EncoderTokenizer.__init__"),
    ("loading tokenizers, configs, exports", "load_remapped"),
    ("loading tokenizers, configs, exports", "scorer_for"),
    ("reading data", "Benchmark"),
    ("imports (start-up)", "_find_and_load"),
)


def summarise(path: Path, rate: float) -> dict[str, float]:
    """Seconds per stage (``other``: anything else)."""
    seconds: Counter[str] = Counter()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        names = {frame.split(" (")[0] for frame in stack.split(";")}
        stage = next((s for s, f in STAGES if f in names), "other")
        seconds[stage] += int(count) / rate
    return dict(seconds.most_common())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profile", help="py-spy record --format raw output")
    ap.add_argument("--rate", type=float, default=100, help="samples a second (py-spy -r)")
    ap.add_argument("--out", help="JSON (default: beside the profile, .json)")
    args = ap.parse_args()
    seconds = summarise(Path(args.profile), args.rate)
    total = sum(seconds.values())
    print(f"{'stage':40} {'seconds':>8} {'share':>6}")
    for stage, s in seconds.items():
        print(f"{stage:40} {s:8.1f} {100 * s / total:5.1f}%")
    print(f"{'total (sampled)':40} {total:8.1f}")
    out = Path(args.out or Path(args.profile).with_suffix(".json"))
    out.write_text(json.dumps({"seconds": seconds, "total": total}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
