"""crossalign's library: cross-lingual remappings of contextual encoders (no Lightning here)."""
from .corpus import ParallelCorpus, read_parallel
from .encoder import Encoder, EncoderSpec, load_encoder
from .errors import InputError
from .export import RemappedEncoder, export_remapped, load_remapped
from .mappings import Mapping, load_mapping
from .version import __version__

__all__ = ["ParallelCorpus", "read_parallel", "Encoder", "EncoderSpec", "load_encoder",
           "InputError", "RemappedEncoder", "export_remapped", "load_remapped", "Mapping",
           "load_mapping", "__version__"]
