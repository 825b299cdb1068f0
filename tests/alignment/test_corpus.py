import pytest

from alignment.data.corpus import ParallelCorpus, read_lines, read_parallel
from alignment.errors import InputError


def test_two_files(parallel_files):
    corpus = read_parallel(*parallel_files)
    assert len(corpus) == 10
    assert corpus.src[0] == "la casa es grande ." and corpus.tgt[0] == "the house is big ."


def test_tsv_and_fast_align_give_the_same_corpus(parallel_files, tmp_path):
    two = read_parallel(*parallel_files)
    tsv = tmp_path / "c.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in zip(two.src, two.tgt)))
    fa = tmp_path / "c.fa"
    fa.write_text("".join(f"{s} ||| {t}\n" for s, t in zip(two.src, two.tgt)))
    for path in (tsv, fa):
        other = read_parallel(path)
        assert other.src == two.src and other.tgt == two.tgt
        assert other.fingerprint() == two.fingerprint()


def test_unequal_line_counts_name_the_file_and_line(tmp_path):
    (tmp_path / "a").write_text("uno\ndos\ntres\n")
    (tmp_path / "b").write_text("one\ntwo\n")
    with pytest.raises(InputError, match=r"b:3: line counts differ"):
        read_parallel(tmp_path / "a", tmp_path / "b")


def test_empty_line_is_reported_with_its_number(tmp_path):
    (tmp_path / "a").write_text("uno\n\ntres\n")
    with pytest.raises(InputError, match=r"a:2: empty line"):
        read_lines(tmp_path / "a")


def test_non_utf8_is_reported_with_its_line(tmp_path):
    (tmp_path / "a").write_bytes("uno\ndós\n".encode("utf-8") + "canción\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"a:3: not valid UTF-8"):
        read_lines(tmp_path / "a")


def test_malformed_fast_align_line(tmp_path):
    (tmp_path / "c.fa").write_text("a ||| b\nno separator here\n")
    with pytest.raises(InputError, match=r"c.fa:2: expected two fields"):
        read_parallel(tmp_path / "c.fa", fmt="fast_align")


def test_fingerprint_is_order_and_side_sensitive():
    a = ParallelCorpus(["x", "y"], ["1", "2"])
    assert a.fingerprint() != ParallelCorpus(["y", "x"], ["2", "1"]).fingerprint()
    assert a.fingerprint() != ParallelCorpus(["1", "2"], ["x", "y"]).fingerprint()
    assert a.fingerprint() == ParallelCorpus(["x", "y"], ["1", "2"]).fingerprint()
