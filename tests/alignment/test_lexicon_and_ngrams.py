import gzip
import os

import pytest

from alignment.data.char_ngrams import char_ngram_retrieval_p1, char_ngrams
from alignment.errors import InputError
from alignment.data.lexicon import read_freedict, read_lexicon, single_word_pairs

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64(n: int) -> str:
    s = ""
    while True:
        s = B64[n % 64] + s
        n //= 64
        if n == 0:
            return s


def test_freedict_format_is_parsed_with_sense_order(tmp_path):
    entries = {"casa": "casa /ˈkasa/\n1. house, home\n2. household\n",
               "perro": "perro /ˈpero/\ndog\n"}
    data, index, pos = b"", [], 0
    for head, text in entries.items():
        raw = text.encode()
        index.append(f"{head}\t{_b64(pos)}\t{_b64(len(raw))}")
        data += raw
        pos += len(raw)
    (tmp_path / "x.index").write_text("00databaseinfo\tA\tB\n" + "\n".join(index) + "\n")
    with gzip.open(tmp_path / "x.dict.dz", "wb") as fh:
        fh.write(data)
    lex = read_lexicon(tmp_path / "x.index")
    assert lex == {"casa": ["house", "home", "household"], "perro": ["dog"]}


def test_tsv_lexicon_and_its_errors(tmp_path):
    (tmp_path / "l.tsv").write_text("casa\thouse\ncasa\thome\nperro\tdog\n")
    assert read_lexicon(tmp_path / "l.tsv") == {"casa": ["house", "home"], "perro": ["dog"]}
    (tmp_path / "bad.tsv").write_text("casa\thouse\nperro\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: expected"):
        read_lexicon(tmp_path / "bad.tsv")


def test_single_word_pairs_filters_phrases():
    assert single_word_pairs({"Casa": ["House", "put to bed"], "a menudo": ["often"]}) == {"casa": ["house"]}


@pytest.mark.skipif(not os.path.isfile("/usr/share/dictd/freedict-spa-eng.index"),
                    reason="dict-freedict-spa-eng is not installed")
def test_real_freedict_spa_eng():
    lex = read_freedict("/usr/share/dictd/freedict-spa-eng.index")
    assert len(lex) > 4000 and "house" in lex["casa"]


def test_char_ngrams_and_the_lexical_shortcut():
    assert char_ngrams("ab", (3,)) == {" ab": 1, "ab ": 1}
    src = ["Jerusalem y Judá", "Abraham engendró a Isaac", "la luz"]
    tgt = ["Jerusalem and Judah", "Abraham became the father of Isaac", "the light"]
    assert char_ngram_retrieval_p1(src, tgt) >= 2 / 3
