"""crossalign's library: cross-lingual remappings of contextual encoders (no Lightning here),
grouped by concept: ``data``, ``encoding``, ``mappings``, ``unsupervised``, ``evaluation``,
``xmover``, ``export`` (plus ``errors``, ``atomic``, ``lazy``, ``version``).

The public names below are imported on first use, so that ``import alignment.errors`` (what the
command line needs to start) does not load torch."""
from __future__ import annotations

from .lazy import lazy_attributes
from .version import __version__

_PUBLIC = {"ParallelCorpus": "data.corpus", "read_parallel": "data.corpus",
           "Encoder": "encoding.encoder", "EncoderSpec": "encoding.encoder",
           "load_encoder": "encoding.encoder", "InputError": "errors",
           "RemappedEncoder": "export.remapped", "export_remapped": "export.remapped",
           "load_remapped": "export.remapped", "Mapping": "mappings", "load_mapping": "mappings"}

__all__ = [*_PUBLIC, "__version__"]

__getattr__ = lazy_attributes(__name__, _PUBLIC, globals())
