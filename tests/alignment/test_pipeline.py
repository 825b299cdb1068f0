import numpy as np
import pytest

from alignment.data.corpus import ParallelCorpus, read_parallel
from alignment.encoding.encoder import load_encoder
from alignment.errors import InputError
from alignment.evaluation.retrieval import char_ngram_reference, evaluate_mapping
from alignment.encoding.pipeline import prepare, tokenize_corpus
from alignment.data.tokenize import Tokenizer
from alignment.data.vectors import WordVectors, aligned_pairs, default_cache_dir
from tests.conftest import EN, ES, identity_alignment_file


def test_vectors_are_cached_by_content_and_reused(tmp_path, parallel_files, tiny_bert, monkeypatch):
    corpus = read_parallel(*parallel_files)
    align = identity_alignment_file(tmp_path / "a.txt", ES, EN)
    enc = load_encoder(str(tiny_bert))
    first = prepare(corpus, enc, align, progress=False)
    files = sorted((default_cache_dir() / "vectors").iterdir())
    assert len(files) == 2  # one per side

    def boom(*args, **kwargs):
        raise AssertionError("encoder ran although the vectors were cached")

    monkeypatch.setattr(enc, "encode_words", boom)
    second = prepare(corpus, enc, align, progress=False)
    np.testing.assert_array_equal(first.src.vectors, second.src.vectors)
    # a different layer is a different cache entry
    other = load_encoder(str(tiny_bert), layer=1)
    prepare(corpus, other, align, progress=False)
    assert len(list((default_cache_dir() / "vectors").iterdir())) == 4


def test_alignment_out_of_range_fails_before_encoding(tmp_path, parallel_files, tiny_bert, monkeypatch):
    corpus = read_parallel(*parallel_files)
    bad = tmp_path / "bad.txt"
    bad.write_text("0-0 9-9\n" * len(ES))
    enc = load_encoder(str(tiny_bert))
    monkeypatch.setattr(enc, "encode_words", lambda *a, **k: pytest.fail("encoded first"))
    with pytest.raises(InputError, match=r"bad.txt:1: link 9-9 out of range"):
        prepare(corpus, enc, bad, progress=False)


def test_sentence_without_tokens_is_named():
    with pytest.raises(InputError, match="sentence 2 .* no tokens on the target side"):
        tokenize_corpus(ParallelCorpus(["a", "b"], ["x", "   "]), Tokenizer())


def test_aligned_pairs_and_sentence_means():
    src = WordVectors.from_list([np.arange(6, dtype=np.float32).reshape(3, 2),
                                 np.full((1, 2), np.nan, dtype=np.float32)])
    tgt = WordVectors.from_list([np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)])
    x, y, origin = aligned_pairs(src, tgt, [[(0, 1), (2, 0)], [(0, 0)]])
    assert x.tolist() == [[0, 1], [4, 5]] and y.tolist() == [[1, 1], [1, 1]]
    assert origin.tolist() == [[0, 0, 1], [0, 2, 0]]  # the NaN (truncated) word is skipped
    np.testing.assert_allclose(src.sentence_means(), [[2, 3], [0, 0]])


def test_evaluation_rows_on_tiny_data(tmp_path, parallel_files, tiny_bert):
    corpus = read_parallel(*parallel_files)
    align = identity_alignment_file(tmp_path / "a.txt", ES, EN)
    data = prepare(corpus, load_encoder(str(tiny_bert)), align, progress=False)
    lexicon = {"casa": ["house"], "perro": ["dog"], "gato": ["cat"]}
    metrics = evaluate_mapping(data, None, lexicon, csls=True)
    for key in ("retrieval_cosine_src2tgt", "retrieval_csls_tgt2src", "cbli_p1", "lexicon_p1"):
        assert 0.0 <= metrics[key] <= 1.0
    assert metrics["lexicon_pairs"] == 3.0
    from alignment.data.char_ngrams import char_ngram_retrieval_p1

    ref = char_ngram_reference(data)
    assert ref["retrieval_cosine_tgt2src"] == char_ngram_retrieval_p1(corpus.tgt, corpus.src)


def test_cbli_gold_is_one_to_one_and_unseen_types_are_a_subset(tmp_path, parallel_files, tiny_bert):
    from alignment.evaluation.retrieval import contextual_bli

    corpus = read_parallel(*parallel_files)
    align = identity_alignment_file(tmp_path / "a.txt", ES, EN)
    lines = align.read_text().splitlines()
    lines[0] += " 0-1"  # source word 0 of sentence 1 now has two targets: a 1:2 group
    align.write_text("\n".join(lines) + "\n")
    data = prepare(corpus, load_encoder(str(tiny_bert)), align, progress=False)
    all_links = contextual_bli(data, None, one_to_one_gold=False)["cbli_pairs"]
    gold = contextual_bli(data, None)["cbli_pairs"]
    assert all_links - gold == 3  # 0-0, 0-1 and 1-1 (target 1 is shared) leave the gold
    lexicon = {"casa": ["house"], "perro": ["dog"], "gato": ["cat"]}
    metrics = evaluate_mapping(data, None, lexicon, unseen_types={"perro", "mesa"})
    assert metrics["lexicon_unseen_pairs"] == 1.0 and metrics["lexicon_pairs"] == 3.0
    assert metrics["lexicon_unseen_p1"] in (0.0, 1.0)
