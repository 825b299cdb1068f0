"""XMoverScore: reference-free MT evaluation by optimal transport of (remapped) token vectors."""
from .idf import IdfWeights, compute_idf
from .ngrams import ngram_vectors, select_tokens
from .scorer import VERSIONS, XMoverScorer
from .transport import emd, emd_flow, score_2020, score_2022

__all__ = ["XMoverScorer", "VERSIONS", "IdfWeights", "compute_idf", "ngram_vectors",
           "select_tokens", "emd", "emd_flow", "score_2020", "score_2022"]
