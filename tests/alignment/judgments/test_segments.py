"""The judgments TSV: what it reads, how it fails (file and line), and that writing it back
reads the same."""
import numpy as np
import pytest

from alignment.errors import InputError
from alignment.judgments.segments import JudgedSegments, concat, format_judgments, read_judgments


def _write(tmp_path, text, name="j.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_written_judgments_read_back_the_same(tmp_path):
    data = JudgedSegments(["de-en", "de-en", "cs-en"], ["a b", "c\td", "e"], ["x", "y", "z"],
                          np.array([0.5, -1.25, 2.0]), ["r1", "r2", "r3"], ["s1", "s2", "s1"],
                          {"sentbleu": np.array([0.1, 0.2, 0.3])})
    back = read_judgments(_write(tmp_path, format_judgments(data)), ("sentbleu",))
    assert back.src == ["a b", "c d", "e"] and back.ref == data.ref and back.system == data.system
    assert np.array_equal(back.human, data.human)
    assert np.array_equal(back.baselines["sentbleu"], data.baselines["sentbleu"])
    assert back.pairs == ["de-en", "cs-en"] and len(back.of_pair("cs-en")) == 1
    both = concat([back.of_pair("cs-en"), back.of_pair("de-en")])
    assert both.lp == ["cs-en", "de-en", "de-en"] and both.human[0] == 2.0


def test_reference_is_optional(tmp_path):
    data = read_judgments(_write(tmp_path, "lp\tsrc\tmt\tscore\nro-en\tun\tone\t0.3\n"))
    assert data.ref is None and data.system is None and data.human.tolist() == [0.3]


@pytest.mark.parametrize("text, message", [
    ("lp\tsrc\tmt\tscore\nde-en\ta\tb\tgood\n", r"j.tsv:2: score 'good' is not a number"),
    ("lp\tsrc\tmt\tscore\nde-en\ta\tb\t0.1\nde-en\ta\tb\n", r"j.tsv:3: 3 fields, the header has 4"),
    ("lp\tsrc\tmt\tscore\nde-en\ta\tb\tnan\n", r"j.tsv:2: score 'nan' is not a finite number"),
    ("lp\tsrc\tmt\tscore\nde-en\t \tb\t1\n", r"j.tsv:2: empty 'src' field"),
    ("lp\tsrc\tscore\n", r"j.tsv:1: header lacks column\(s\) \['mt'\]"),
    ("lp\tsrc\tmt\tscore\n", r"j.tsv: no judged segments"),
    ("", r"j.tsv: file is empty"),
])
def test_bad_judgments_name_file_and_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_judgments(_write(tmp_path, text))


def test_a_baseline_column_must_hold_numbers(tmp_path):
    path = _write(tmp_path, "lp\tsrc\tmt\tscore\tsentbleu\nde-en\ta\tb\t1\tx\n")
    with pytest.raises(InputError, match=r"j.tsv:2: sentbleu 'x' is not a number"):
        read_judgments(path, ("sentbleu",))
    with pytest.raises(InputError, match=r"j.tsv:1: header lacks column\(s\) \['model_score'\]"):
        read_judgments(path, ("model_score",))


def test_bad_bytes_name_the_line(tmp_path):
    path = tmp_path / "j.tsv"
    path.write_bytes(b"lp\tsrc\tmt\tscore\nde-en\t\xff\tb\t1\n")
    with pytest.raises(InputError, match=r"j.tsv:2: not valid UTF-8"):
        read_judgments(path)
