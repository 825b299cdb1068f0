import pytest

from alignment.errors import InputError
from alignment.data.word_align import (eflomal_align, grow_diag_final_and, intersect, one_to_one,
                                       read_pharaoh, write_pharaoh)


def test_pharaoh_round_trip(tmp_path):
    links = [[(0, 0), (1, 2), (2, 1)], [], [(3, 3)]]
    write_pharaoh(tmp_path / "a.txt", links)
    assert read_pharaoh(tmp_path / "a.txt") == links


def test_fast_align_output_with_probabilities_is_read_as_is(tmp_path):
    (tmp_path / "fa").write_text("0-0-0.9 1-1-0.5\n")
    assert read_pharaoh(tmp_path / "fa") == [[(0, 0), (1, 1)]]


def test_out_of_range_index_names_file_and_line(tmp_path):
    (tmp_path / "a").write_text("0-0 1-1\n0-0 2-1\n")
    with pytest.raises(InputError, match=r"a:2: link 2-1 out of range"):
        read_pharaoh(tmp_path / "a", src_lengths=[2, 2], tgt_lengths=[2, 2])


def test_wrong_number_of_lines(tmp_path):
    (tmp_path / "a").write_text("0-0\n")
    with pytest.raises(InputError, match="1 alignment lines for 2 sentence pairs"):
        read_pharaoh(tmp_path / "a", src_lengths=[1, 1], tgt_lengths=[1, 1])


def test_garbage_link(tmp_path):
    (tmp_path / "a").write_text("0-0 x-1\n")
    with pytest.raises(InputError, match=r"a:1: bad alignment link 'x-1'"):
        read_pharaoh(tmp_path / "a")


def test_symmetrisation_on_a_hand_worked_case():
    fwd = [(0, 0), (1, 1), (2, 1)]
    rev = [(0, 0), (1, 1), (2, 2)]
    assert intersect(fwd, rev) == [(0, 0), (1, 1)]
    # (2,1) neighbours (1,1) but both its words... source 2 is unaligned -> grows;
    # (2,2) then has source 2 aligned and target 2 unaligned -> also added.
    assert grow_diag_final_and(fwd, rev) == [(0, 0), (1, 1), (2, 1), (2, 2)]


def test_grow_diag_final_and_stays_within_the_union():
    fwd = [(0, 1), (1, 0), (3, 3)]
    rev = [(0, 1), (2, 2)]
    sym = set(grow_diag_final_and(fwd, rev))
    assert set(intersect(fwd, rev)) <= sym <= set(fwd) | set(rev)
    assert (3, 3) in sym and (2, 2) in sym  # final-and adds links between unaligned words


def test_one_to_one_drops_words_in_several_links():
    assert one_to_one([(0, 0), (1, 1), (1, 2), (3, 3), (4, 3)]) == [(0, 0)]


def test_eflomal_aligns_real_text():
    pytest.importorskip("eflomal")
    import random

    rng = random.Random(0)
    vocab = [f"w{k}" for k in range(40)]
    src = [[rng.choice(vocab) for _ in range(rng.randint(3, 9))] for _ in range(600)]
    tgt = [[f"t{w[1:]}" for w in s] for s in src]  # a word-for-word translation, same order
    links = eflomal_align(src, tgt)
    assert len(links) == len(src)
    for s, t, l in zip(src, tgt, links):
        assert all(i < len(s) and j < len(t) for i, j in l)
    flat = [link for l in links for link in l]
    diagonal = sum(i == j for i, j in flat) / len(flat)
    coverage = len({(k, i) for k, l in enumerate(links) for i, _ in l}) / sum(map(len, src))
    # judge shares, not single links: they should hold for any seed
    assert diagonal > 0.9 and coverage > 0.9, (diagonal, coverage)


def test_unknown_symmetrisation():
    with pytest.raises(InputError, match="symmetrise"):
        eflomal_align([["a"]], [["b"]], symmetrise="union-ish")
