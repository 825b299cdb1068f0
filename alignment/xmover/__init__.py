"""XMoverScore: reference-free MT evaluation by optimal transport of (remapped) token vectors."""
from .idf import IdfWeights, compute_idf
from .ngrams import ngram_vectors, select_tokens
from .scorer import XMoverScorer
from .transport import emd, emd_flow, score_2020, score_2022
from .versions import VERSIONS, Version, get_version

__all__ = ["XMoverScorer", "VERSIONS", "Version", "get_version", "IdfWeights", "compute_idf", "ngram_vectors",
           "select_tokens", "emd", "emd_flow", "score_2020", "score_2022"]
