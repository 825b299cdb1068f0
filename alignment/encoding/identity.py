"""What identifies a set of vectors: the encoder, its revision, layer, pooling and tokenisation
(part of cache keys, exports and signatures)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class EncoderIdentity:
    """What identifies a set of vectors: part of cache keys, exports and signatures."""

    encoder: str
    revision: str | None
    layer: int
    pooling: str
    max_length: int = 512
    tokenizer: str = "crossalign-word-v1"
    lowercase: bool = False
    # how words are pooled from subword pieces, when not from all of them: "no-bare-marker"
    # for SentencePiece/BPE tokenizers (their bare ▁/Ġ pieces are skipped); None for WordPiece
    subwords: str | None = None

    @property
    def pool_label(self) -> str:
        """The pooling as signatures write it: ``first``, or ``first-nobare`` where bare word
        markers are skipped."""
        return f"{self.pooling}-nobare" if self.subwords else self.pooling

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if data["subwords"] is None:  # identities (and cache keys) of WordPiece encoders as before
            del data["subwords"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EncoderIdentity":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
