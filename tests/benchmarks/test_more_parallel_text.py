"""The more-parallel-text benchmark's retrieval check: P@1 finds each translation when the map
carries one language onto the other, and falls when the pairs are scrambled."""
from pathlib import Path

import numpy as np

from alignment.xmover.sentence_map import fit_sentence_map
from benchmarks.more_parallel_text import foreign, packaged_text, retrieval_p1


class _Term:
    """Sentence vectors looked up from a table (a stand-in encoder)."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def vectors(self, lines, progress=False, desc=""):
        return np.stack([self.table[line] for line in lines])


def _packaged(root: Path, de: list[str], en: list[str]) -> None:
    folder = root / "parallel-de-en"
    folder.mkdir(parents=True)
    (folder / "test.de").write_text("\n".join(de) + "\n")
    (folder / "test.en").write_text("\n".join(en) + "\n")


def test_p_at_1_finds_the_translations_a_map_aligns_and_not_scrambled_ones(tmp_path):
    rng = np.random.default_rng(0)
    n, d = 40, 8
    en_vec = rng.normal(size=(n, d))
    rotation, _ = np.linalg.qr(rng.normal(size=(d, d)))
    de_vec = en_vec @ rotation.T  # German: English turned
    de = [f"satz {i}" for i in range(n)]
    en = [f"sentence {i}" for i in range(n)]
    term = _Term({**dict(zip(de, de_vec)), **dict(zip(en, en_vec))})
    student = {"encoder": "toy", "layer": 0, "prefix": ""}
    _packaged(tmp_path / "a", de, en)
    assert packaged_text(tmp_path / "a", "de", "test") == (de, en) and foreign("en-de") == "de"
    aligned = fit_sentence_map(en_vec, de_vec, "orthogonal", "en", "de", student)
    scrambled = fit_sentence_map(en_vec, de_vec[rng.permutation(n)], "orthogonal", "en", "de",
                                 student)
    p1 = retrieval_p1(term, {"aligned": aligned, "scrambled": scrambled}, tmp_path / "a", "de")
    assert p1["aligned"] == 1.0 and p1["scrambled"] < 0.5
