"""crossalign's library: cross-lingual remappings of contextual encoders (no Lightning here).

The public names below are imported on first use, so that ``import alignment.errors`` (what the
command line needs to start) does not load torch."""
from __future__ import annotations

from .lazy import lazy_attributes
from .version import __version__

_PUBLIC = {"ParallelCorpus": "corpus", "read_parallel": "corpus", "Encoder": "encoder",
           "EncoderSpec": "encoder", "load_encoder": "encoder", "InputError": "errors",
           "RemappedEncoder": "export", "export_remapped": "export", "load_remapped": "export",
           "Mapping": "mappings", "load_mapping": "mappings"}

__all__ = [*_PUBLIC, "__version__"]

__getattr__ = lazy_attributes(__name__, _PUBLIC, globals())
