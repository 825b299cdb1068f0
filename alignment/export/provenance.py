"""Typed provenance records: which encoder made the vectors, which data fed a fit, and the
``run.json`` a fit writes and ``export`` reads."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from alignment.atomic import write_text
from alignment.encoding.identity import EncoderIdentity
from alignment.errors import InputError
from alignment.names import check_corpus_name, check_language

RUN_FILE = "run.json"


@dataclass(frozen=True)
class DataProvenance:
    """Where a fit's pairs came from (``encoder`` is None for bring-your-own vectors;
    ``alignment`` fingerprints the exact word links, so a run can be matched to the cached or
    given Pharaoh file it used; ``aligner`` says what made them, e.g.
    ``eflomal-2.0.0,seed=0,grow-diag-final-and``, or ``pharaoh-file``)."""

    encoder: EncoderIdentity | None = None
    data_fingerprint: str | None = None
    n_sentences: int | None = None
    n_pairs: int | None = None
    corpus: str = "vectors"
    src_lang: str = "src"
    tgt_lang: str = "tgt"
    alignment: str | None = None  # fingerprint of the word links used
    aligner: str | None = None    # what made them: aligner, version, seed, symmetrisation

    def with_languages(self, src_lang: str | None, tgt_lang: str | None) -> "DataProvenance":
        return replace(self, src_lang=src_lang or self.src_lang, tgt_lang=tgt_lang or self.tgt_lang)


@dataclass(frozen=True)
class RunRecord:
    """``run.json``: the fitted mapping's identity and its data's provenance."""

    mapping_type: str
    mapping_fingerprint: str
    data: DataProvenance
    threads: int | None = None  # torch's CPU threads: a trained map's last digits depend on it

    def to_json(self) -> dict[str, Any]:
        flat = {"mapping_type": self.mapping_type, "mapping_fingerprint": self.mapping_fingerprint,
                **asdict(self.data), "threads": self.threads}
        flat["encoder"] = None if self.data.encoder is None else self.data.encoder.as_dict()
        return flat

    def write(self, run_dir: str | Path) -> Path:
        path = Path(run_dir) / RUN_FILE
        write_text(path, json.dumps(self.to_json(), indent=2))
        return path

    @classmethod
    def read(cls, run_dir: str | Path) -> "RunRecord":
        path = Path(run_dir) / RUN_FILE
        if not path.is_file():
            raise InputError(f"no {RUN_FILE}: not a crossalign run directory", path=run_dir)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            enc = raw.get("encoder")
            data = DataProvenance(
                encoder=None if enc is None else EncoderIdentity.from_dict(enc),
                **{f.name: raw[f.name] for f in fields(DataProvenance)
                   if f.name != "encoder" and raw.get(f.name) is not None})
            check_corpus_name(data.corpus, path=path)  # they become parts of file names
            check_language(data.src_lang, path=path)
            check_language(data.tgt_lang, path=path)
            threads = raw.get("threads")
            return cls(raw["mapping_type"], raw["mapping_fingerprint"], data,
                       int(threads) if threads is not None else None)
        except json.JSONDecodeError as err:
            raise InputError(f"invalid JSON ({err.msg})", path=path, line=err.lineno) from None
        except (KeyError, TypeError, AttributeError) as err:
            raise InputError(f"not a valid {RUN_FILE} ({err})", path=path) from None
