"""Data-parallel encoding: every sentence on exactly one process, gathered in order, written to
the cache entry the pipeline reads; 2 gloo processes on CPU equal the plain encoder."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from alignment.encoding.encoder import Encoder, EncoderSpec
from alignment.encoding.pipeline import encode_side
from alignment.data.vectors import WordVectors
from tests.conftest import ES
from train.data.encoding import shard

ROOT = Path(__file__).resolve().parents[3]


def test_shards_cover_every_item_once_without_padding():
    for n, world in ((7, 2), (5, 3), (2, 4)):
        parts = [shard(n, r, world) for r in range(world)]
        assert sorted(i for p in parts for i in p) == list(range(n))
        assert max(map(len, parts)) - min(map(len, parts)) <= 1


def _run_encode(tmp_path: Path, corpus: Path, cache: Path, tiny_bert, *extra: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CROSSALIGN_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "train.cli", "encode", str(corpus), "--encoder",
                           str(tiny_bert), "--accelerator", "cpu", "--batch-size", "2",
                           "--no-progress", *extra], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_two_processes_fill_the_cache_the_pipeline_reads(tmp_path, tiny_bert):
    corpus = tmp_path / "side.es"
    lines = ES[:7]  # 7 sentences: shares of 4 and 3
    corpus.write_text("".join(s + "\n" for s in lines), encoding="utf-8")
    out = _run_encode(tmp_path, corpus, tmp_path / "c2", tiny_bert, "--devices", "2",
                      "--strategy", "ddp")
    assert out.count("→") == 1  # process 0 reports, once
    cached = WordVectors.load(out.split("→ ")[1].strip())
    enc = Encoder(EncoderSpec(str(tiny_bert)), device="cpu")
    tokens = enc.tokenize_words(lines)
    expected = enc.encode_words(tokens, progress=False)
    assert len(cached) == 7
    for i, vecs in enumerate(expected):
        np.testing.assert_allclose(cached.sentence(i), vecs, atol=1e-5)
    # the pipeline's encode_side finds it: no encoding happens
    def refuse(*args, **kwargs):
        raise AssertionError("encoded again instead of reading the cache")

    enc.encode_words = refuse
    again = encode_side(enc, lines, tokens, cache_dir=tmp_path / "c2", progress=False)
    np.testing.assert_array_equal(again.vectors, cached.vectors)
