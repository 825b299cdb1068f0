"""The raw-text data module for encoder fine-tuning: global batches sharded across processes,
checks before any work, real eflomal links and tokenisation on the tiny BERT."""
import pytest
import torch

from alignment.errors import InputError
from tests.conftest import EN, ES
from train.data.parallel_text import GlobalBatchSampler, ParallelTextDataModule


def test_ranks_together_see_exactly_the_single_process_batches():
    lengths = [(k * 7) % 23 + 3 for k in range(61)]
    one = list(GlobalBatchSampler(lengths, 8, seed=3))
    shards = [list(GlobalBatchSampler(lengths, 8, seed=3, rank=r, world=2)) for r in (0, 1)]
    assert len(shards[0]) == len(shards[1]) == len(one)
    for whole, a, b in zip(one, *shards):
        assert sorted(i for i, _ in whole) == sorted(i for i, _ in a + b)
        assert {g for _, g in whole + a + b} == {len(whole)}  # every item knows the global size
    assert sorted(i for batch in one for i, _ in batch) == list(range(61))
    again = GlobalBatchSampler(lengths, 8, seed=3)
    assert list(again) == one
    again.set_epoch(1)
    assert list(again) != one  # a new order each epoch


def test_a_global_batch_smaller_than_the_world_is_dropped_on_every_rank():
    shards = [list(GlobalBatchSampler([5] * 9, 4, seed=0, shuffle=False, rank=r, world=2))
              for r in (0, 1)]
    assert [len(s) for s in shards] == [2, 2]  # batches of 4, 4, and a lone 9th dropped


@pytest.mark.parametrize("kwargs, parameter", [
    ({"corpora": [{"src": "a", "src_lang": "es", "lang": "x"}]}, "corpora"),
    ({"corpora": [{"src": "a", "src_lang": "en"}]}, "corpora"),
    ({"corpora": [{"src": "a", "src_lang": "de"}], "text": True}, "text"),
    ({"src": "a", "src_lang": "es", "batch_size": 0}, "batch_size"),
    ({}, "data"),
])
def test_bad_settings_are_refused_by_name(kwargs, parameter):
    with pytest.raises(InputError) as err:
        ParallelTextDataModule(**kwargs)
    assert err.value.parameter == parameter


def test_setup_aligns_tokenises_and_holds_out_validation(parallel_files, tiny_bert, tmp_path):
    src, tgt = parallel_files
    dm = ParallelTextDataModule(src=str(src), tgt=str(tgt), src_lang="es", encoder=str(tiny_bert),
                                val_sentences=3, batch_size=4, progress=False,
                                cache_dir=str(tmp_path / "cache"))
    dm.setup()
    (data,) = dm.data
    assert len(data.train) == len(ES) - 3 and len(data.val) == 3
    assert data.val_corpus.src == ES[-3:]
    assert sum(len(e.links) for e in data.train) > 0  # eflomal found 1-to-1 links
    prov = dm.provenance
    assert (prov.src_lang, prov.tgt_lang, prov.n_sentences) == ("es", "en", len(ES) - 3)
    # the data holds the encoder's tokenizer and identity, never its weights: the module
    # that trains the model builds it
    assert not hasattr(dm.tokenization, "model")
    assert not any(isinstance(v, torch.nn.Module) for v in vars(dm).values())
    from alignment.encoding.encoder import Encoder
    assert Encoder(dm.encoder_spec).identity() == prov.encoder
    short = tmp_path / "short.es"
    short.write_text("uno\n")
    bad = ParallelTextDataModule(src=str(short), tgt=str(short), src_lang="es",
                                 encoder=str(tiny_bert), val_sentences=3)
    with pytest.raises(InputError, match="validation pairs"):
        bad.setup()
