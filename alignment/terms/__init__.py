"""The terms a score adds up, one module a term, and what they share: the contract
and the registry (``term``: ``Term``, ``Batch``, ``Runtime``, ``TERMS``) and the weights
(``setting``: ``Setting``); the word-level terms of ``--words`` likewise (``word_term``:
``WordTerm``, ``WordBatch``, ``WORD_TERMS``; ``word_*``). Importing this package registers
every term, in the order settings, rows and signatures list them."""
from __future__ import annotations

from .term import Batch, Runtime, Term, TermContext
from .term import TERMS, get_term, register_term
from .setting import Setting, parse_term_weights, setting_grid, standardise
from . import xmover, target_lm, sentence, consensus, use, target_language  # noqa: F401  (registration order)
from . import gemma_given_source, gemma_back, gemma_source_alone  # noqa: F401
from . import target_language_id  # noqa: F401
from .word_term import WORD_TERMS, WordBatch, WordTerm, register_word_term
from . import word_transport, word_nearest, word_surprisal  # noqa: F401  (registration order)

TERMS.rename("gemma-src", "gemma-given-source")
TERMS.rename("gemma-source", "gemma-source-alone")

__all__ = ["Batch", "Runtime", "Term", "TermContext", "TERMS", "get_term", "register_term",
           "Setting", "parse_term_weights", "setting_grid", "standardise", "WORD_TERMS",
           "WordBatch", "WordTerm", "register_word_term"]
