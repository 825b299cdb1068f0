"""``benchmarks/pair_tables.py`` runs a pair's whole table as ``crossalign`` commands: every command it
would run parses with the real command line, names the pair's own files, and lands in the
folder its summary reads."""
import importlib.util
from pathlib import Path

import pytest

from train.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pairs():
    spec = importlib.util.spec_from_file_location("pairs_benchmark", ROOT / "benchmarks" / "pair_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("pair", ["es-en", "de-en", "eu-en", "ny-en"])
def test_every_stage_is_a_valid_command_for_the_pair(pairs, pair, tmp_path):
    src = pair.split("-")[0]
    for stage in pairs.STAGES:
        runs = pairs.stage_runs(stage, pair, list(pairs.ENCODERS), 5000, tmp_path, 1)
        assert runs, stage
        for folder, args in runs:
            ns = build_parser(args).parse_args(args)
            assert Path(getattr(ns, "out_dir", None) or ns.out) == folder  # where the summary reads
            if stage == "challenge":
                assert ns.src.endswith(f"test.{src}") and ns.ref.endswith("test.en")
                assert (ns.mt == "none") == (src not in pairs.APERTIUM)
                assert (ns.lexicon is None) == (src in ("eu", "ny"))  # no FreeDict for them
            else:
                assert ns.pair == pair and ns.train_verses == 5000


def test_the_stages_read_back_what_they_wrote(pairs, tmp_path):
    """A trained-stage summary is clp_flow against center > clp from compare's own keys."""
    import json

    folder = tmp_path / "compare-de-en-e5"
    folder.mkdir()
    from alignment.mappings import parse_method

    flow = parse_method("clp_flow").label  # compare names the preset's rows by its expansion
    metrics = {f"{row}/semantic/{m}": v for row, v in (("center > clp", 0.5), (flow, 0.6))
               for m in ("retrieval_cosine_src2tgt", "cbli_p1")}
    for key in ("vs_baseline", "cbli_vs_baseline"):
        metrics |= {f"{flow}/{key}": 0.1, f"{flow}/{key}_lo": 0.05, f"{flow}/{key}_hi": 0.15}
    (folder / "metrics.json").write_text(json.dumps(metrics))
    out = pairs.trained_summary(folder)
    assert out["clp_flow"]["cbli"] == 0.6 and out["delta_cbli"] == (0.1, 0.05, 0.15)
    assert out["minutes"] is None  # not run by the script: no wall time to report
