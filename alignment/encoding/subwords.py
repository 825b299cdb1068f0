"""Which subword pieces carry a word: SentencePiece (``▁``) and byte-level BPE (``Ġ``) often
split a word given alone into a bare word marker and the word's text (``▁`` + ``wandten``);
the bare marker is the same piece for every such word, so pooling skips it."""
from __future__ import annotations

from functools import lru_cache

WORD_MARKERS = ("▁", "Ġ")  # SentencePiece's metaspace, byte-level BPE's space


@lru_cache(maxsize=8)  # a 250k-piece vocabulary is not rebuilt per sentence
def bare_marker_ids(tokenizer) -> frozenset[int]:
    """Ids of the pieces that are nothing but a word marker (none for WordPiece)."""
    vocab = tokenizer.get_vocab()
    return frozenset(vocab[m] for m in WORD_MARKERS if m in vocab)


def content_word_ids(input_ids: list[int], word_ids: list[int | None],
                     bare: frozenset[int]) -> list[int | None]:
    """``word_ids`` with each bare-marker piece unassigned (None) where its word has another
    piece: a word is pooled from the pieces that hold its text."""
    if not bare:
        return list(word_ids)
    pieces: dict[int, int] = {}
    for w in word_ids:
        if w is not None:
            pieces[w] = pieces.get(w, 0) + 1
    return [None if w is not None and tok in bare and pieces[w] > 1 else w
            for tok, w in zip(input_ids, word_ids)]
