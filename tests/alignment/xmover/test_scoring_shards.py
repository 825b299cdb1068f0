"""A scoring run in shards: pairs read from files a shard at a time exactly as ``read_lines``
reads them, every bad line refused with its file and line before anything loads, shard scores
kept whole or scored again, a folder of anything else refused, the merge in input order."""
import json

import numpy as np
import pytest

from alignment.data.corpus import read_lines
from alignment.errors import InputError
from alignment.xmover.score_result import ScoreResult
from alignment.xmover.shards import PairFiles, ShardStore


def _files(tmp_path, src: bytes, hyp: bytes):
    (tmp_path / "s.txt").write_bytes(src)
    (tmp_path / "h.txt").write_bytes(hyp)
    return PairFiles(tmp_path / "s.txt", tmp_path / "h.txt")


def test_pairs_are_read_in_shards_as_read_lines_reads_them(tmp_path):
    src = "\ufeffuno\r\ndós\ntres\ncuatro\ncinco".encode()  # BOM, CRLF, no final newline
    hyp = b"one\n\nthree\nfour\nfive\n"  # an empty hypothesis is scored
    files = _files(tmp_path, src, hyp)
    shards = files.shards(2)
    assert [(s.first, s.count) for s in shards] == [(0, 2), (2, 2), (4, 1)]
    got = [files.read(s) for s in shards]
    assert sum((g[0] for g in got), []) == read_lines(tmp_path / "s.txt")
    assert sum((g[1] for g in got), []) == read_lines(tmp_path / "h.txt", allow_empty=True)
    assert len({s.digest for s in shards}) == 3
    again = _files(tmp_path, src, hyp.replace(b"four", b"FOUR")).shards(2)
    assert [s.digest == t.digest for s, t in zip(shards, again)] == [True, False, True]


def test_tsv_and_jsonl_files_give_the_same_pairs(tmp_path):
    (tmp_path / "p.tsv").write_text("uno\tone\ndos\t\n", encoding="utf-8")
    (tmp_path / "p.jsonl").write_text('{"src": "uno", "hyp": "one"}\n{"src": "dos", "hyp": ""}\n',
                                      encoding="utf-8")
    for name in ("p.tsv", "p.jsonl"):
        files = PairFiles(pairs=tmp_path / name)
        assert [files.read(s) for s in files.shards(5)] == [(["uno", "dos"], ["one", ""])]


@pytest.mark.parametrize("name, text, line, says", [
    ("p.tsv", "uno\tone\ndos\n", 2, "has 1 field"),
    ("p.tsv", "uno\tone\tthree\n", 1, "has 3 fields"),
    ("p.tsv", "\tone\n", 1, "empty source"),
    ("p.jsonl", '{"src": "uno", "hyp": "one"}\n{"src": "dos"\n', 2, "not JSON"),
    ("p.jsonl", '["uno", "one"]\n', 1, '"src" and "hyp"'),
])
def test_a_bad_line_is_refused_with_its_file_and_line(tmp_path, name, text, line, says):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=says) as err:
        PairFiles(pairs=tmp_path / name).shards(10)
    assert err.value.line == line and name in str(err.value)


def test_files_of_other_lengths_and_bad_bytes_are_refused_before_scoring(tmp_path):
    with pytest.raises(InputError, match="has 2 lines, s.txt more") as err:
        _files(tmp_path, b"a\nb\nc\n", b"x\ny\n").shards(10)
    assert err.value.line == 3 and "h.txt" in str(err.value)
    with pytest.raises(InputError, match="UTF-8") as err:
        _files(tmp_path, b"a\n\xff\n", b"x\ny\n").shards(10)
    assert err.value.line == 2
    with pytest.raises(InputError, match="not -"):
        PairFiles("-", tmp_path / "h.txt")
    with pytest.raises(InputError, match="shard-size"):
        _files(tmp_path, b"a\n", b"x\n").shards(0)


def _result(values):
    v = np.asarray(values, dtype=float)
    return ScoreResult(v * 2, "sig", {"xmover": v}, {}, 0, {"hypotheses": [1]})


def test_a_store_keeps_whole_shards_scores_damaged_ones_again_and_merges_in_order(tmp_path):
    files = _files(tmp_path, b"a\nb\nc\n", b"x\ny\nz\n")
    shards = files.shards(2)
    store = ShardStore(tmp_path / "run", "sig", files, shards).open()
    store.write(shards[1], _result([3.0]))
    assert [store.finished(s) for s in shards] == [False, True]
    with pytest.raises(InputError, match="did not finish"):
        store.merged()
    store.write(shards[0], _result([1.0, 2.0]))
    merged = store.merged()
    np.testing.assert_array_equal(merged.final, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(merged.xmover, [1.0, 2.0, 3.0])
    assert merged.truncated == {"hypotheses": [1, 3]}  # numbered in the whole input
    path = tmp_path / "run" / shards[0].name
    path.write_text(path.read_text()[:40])  # cut short, as by a full disk
    assert store.damaged(shards[0]) and not store.finished(shards[0])
    other = ShardStore(tmp_path / "run", "sig", files, shards)
    data = json.loads((tmp_path / "run" / shards[1].name).read_text())
    assert other.finished(shards[1]) and data["digest"] == shards[1].digest
    assert not ShardStore(tmp_path / "run", "other sig", files, shards).finished(shards[1])


def test_a_folder_of_another_run_or_of_other_files_is_refused_and_left_as_it_is(tmp_path):
    files = _files(tmp_path, b"a\nb\n", b"x\ny\n")
    ShardStore(tmp_path / "run", "sig", files, files.shards(1)).open()
    with pytest.raises(InputError, match="another run .*signature"):
        ShardStore(tmp_path / "run", "other", files, files.shards(1)).open()
    with pytest.raises(InputError, match="another run .*shard size"):
        ShardStore(tmp_path / "run", "sig", files, files.shards(2)).open()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(InputError, match="never writes into a folder of other files"):
        ShardStore(tmp_path / "mine", "sig", files, files.shards(1)).open()
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["notes.txt"]
