"""Seeded eflomal: the same corpus and seed give the same links in fresh processes and cache
folders; another seed, or no seed, gives other samples; the seed and aligner version reach the
cache key, run records and export signatures."""
import random
import re

import pytest

from alignment.encoding.pipeline import word_alignment
from alignment.data.seeded_eflomal import AlignerNotSeedable, preload_library, seeded_environment
from alignment.data.word_align import aligner_identity, eflomal_align, links_fingerprint
from alignment.errors import InputError

pytest.importorskip("eflomal")


def noisy_corpus(n: int = 400, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """A corpus with reordering and ambiguous words, so that the sampler has real choices."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(60)]
    src, tgt = [], []
    for _ in range(n):
        s = [rng.choice(vocab) for _ in range(rng.randint(4, 12))]
        t = [f"t{int(w[1:]) % 45}" for w in s]  # several source words share a translation
        if rng.random() < 0.5:
            t = t[::-1]
        t.insert(rng.randrange(len(t) + 1), f"x{rng.randrange(30)}")  # an unaligned word
        src.append(s)
        tgt.append(t)
    return src, tgt


def test_same_seed_same_links_in_fresh_cache_folders(tmp_path):
    src, tgt = noisy_corpus()
    first = eflomal_align(src, tgt, seed=7, cache_dir=tmp_path / "a")
    again = eflomal_align(src, tgt, seed=7, cache_dir=tmp_path / "b")  # its own compiled library
    assert links_fingerprint(first) == links_fingerprint(again)


def test_other_seed_or_no_seed_samples_other_links(tmp_path):
    src, tgt = noisy_corpus()
    seeded = links_fingerprint(eflomal_align(src, tgt, seed=0, cache_dir=tmp_path))
    other = links_fingerprint(eflomal_align(src, tgt, seed=1, cache_dir=tmp_path))
    unseeded = {links_fingerprint(eflomal_align(src, tgt, seed=None)) for _ in range(2)}
    assert seeded != other  # the seed reaches the sampler
    assert len(unseeded | {seeded}) > 1  # without the library eflomal draws its own seed


def test_cache_entry_is_per_seed(tmp_path):
    src, tgt = noisy_corpus(200)
    word_alignment(src, tgt, cache_dir=tmp_path, seed=0)
    word_alignment(src, tgt, cache_dir=tmp_path, seed=3)
    assert len(list((tmp_path / "alignments").glob("*.pharaoh"))) == 2


@pytest.mark.parametrize("bad", [-1, 2 ** 63, 1.5, True, "0"])
def test_bad_seed_names_the_parameter(bad, tmp_path):
    with pytest.raises(InputError, match="align_seed"):
        eflomal_align([["a"]], [["b"]], seed=bad, cache_dir=tmp_path)


def test_no_compiler_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(AlignerNotSeedable, match="C compiler"):
        preload_library(tmp_path)
    with pytest.raises(InputError, match="--align-seed none"):
        eflomal_align([["a"]], [["b"]], seed=0, cache_dir=tmp_path)


def test_environment_keeps_a_users_preload(tmp_path, monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", "/opt/other.so")
    env = seeded_environment(5, tmp_path)
    assert env["LD_PRELOAD"].endswith(" /opt/other.so") and env["OMP_NUM_THREADS"] == "2,1"
    assert env["CROSSALIGN_ALIGN_SEED"] == "5"


def test_identity_names_aligner_version_seed_and_symmetrisation():
    ident = aligner_identity(4, "intersect")
    assert re.fullmatch(r"eflomal-[0-9.]+@[0-9a-f]{8},seed=4,intersect", ident), ident
    assert "seed=unseeded" in aligner_identity(None)
    assert aligner_identity(0, alignment="my.pharaoh") == "pharaoh-file"


def test_links_equal_those_of_the_documented_build_on_any_machine(tmp_path):
    """Cross-machine: with the README's portable eflomal build, seed 0 gives on this machine
    the links it gave where docs/ tables were made (its fingerprint recorded there)."""
    from train.experiments.testbed import DOCUMENTED_EFLOMAL_BUILD

    from alignment.data.word_align import eflomal_build

    if eflomal_build() != DOCUMENTED_EFLOMAL_BUILD:
        pytest.skip(f"eflomal {eflomal_build()} is not the documented build")
    src, tgt = noisy_corpus()
    assert links_fingerprint(eflomal_align(src, tgt, seed=0, cache_dir=tmp_path)) == \
        "c2d969e566065adf"


def test_a_seed_library_that_is_not_loaded_is_caught(tmp_path, monkeypatch):
    """ld.so skips a preload it cannot load (say, from a noexec folder) and eflomal would run
    unseeded; the missing proof of the seeded reads turns that into an error."""
    import alignment.data.seeded_eflomal as seeded

    monkeypatch.setattr(seeded, "preload_library", lambda cache: tmp_path / "missing.so")
    src, tgt = noisy_corpus(50)
    with pytest.raises(InputError, match="not seeded"):
        eflomal_align(src, tgt, seed=0, cache_dir=tmp_path)
