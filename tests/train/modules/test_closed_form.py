import json

import numpy as np
import pytest
import torch

from alignment.mappings import load_mapping
from alignment.mappings.moments import PairMoments
from alignment.mappings import fit_composition as fit_from_moments
from train.fitting.in_process import fit_arrays


def _data(n=600, d=12, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32) + 1.0
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    y = (x @ q + 0.05 * rng.normal(size=(n, d)) - 2.0).astype(np.float32)
    return x, y


def test_streaming_lightning_fit_equals_in_memory_fit():
    x, y = _data()
    for spec in ("clp", "center > clp", "umd > clp", "norm"):
        streamed = fit_arrays(x, y, spec, batch_size=64)  # ten batches
        direct = fit_from_moments(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)), spec)
        t = torch.from_numpy(x[:10])
        assert torch.allclose(streamed(t), direct(t), atol=1e-5)


def test_fit_saves_the_mapping_explicitly_and_it_reloads(tmp_path):
    x, y = _data()
    mapping = fit_arrays(x, y, "center > clp", tmp_path / "run")
    assert (tmp_path / "run" / "mapping" / "mapping.safetensors").is_file()
    again = load_mapping(tmp_path / "run" / "mapping", dim=12)
    t = torch.from_numpy(x[:5])
    assert torch.equal(again(t), mapping(t))
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["pairs"] == 600.0
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["mapping_type"] == "center > clp" and run["encoder"] is None
    assert not (tmp_path / "run" / "export").exists()  # no encoder: nothing to export


def test_same_seed_same_data_same_mapping(tmp_path):
    x, y = _data()
    a = fit_arrays(x, y, "umd > clp")
    b = fit_arrays(x, y, "umd > clp")
    assert a.fingerprint() == b.fingerprint()


@pytest.mark.slow
def test_two_process_ddp_fit_equals_the_single_process_fit(tmp_path):
    """Moments are all-reduced; an odd row count checks that shard padding adds nothing."""
    import pytorch_lightning as pl

    from train.callbacks import SaveMapping
    from train.modules import ClosedFormFit
    from train.data.paired import PairedVectorDataModule

    x, y = _data(n=1001, d=8)
    np.savez(tmp_path / "pairs.npz", src=x, tgt=y)
    dm = PairedVectorDataModule(vectors=str(tmp_path / "pairs.npz"), batch_size=100)
    from train.ground.distributed import CleanDDPStrategy

    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=2,
                         strategy=CleanDDPStrategy(start_method="spawn"),
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, default_root_dir=str(tmp_path / "run"),
                         callbacks=[SaveMapping()])
    trainer.fit(ClosedFormFit("center > clp"), datamodule=dm)
    ddp = load_mapping(tmp_path / "run" / "mapping")
    single = fit_from_moments(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)), "center > clp")
    t = torch.from_numpy(x)
    assert torch.allclose(ddp(t), single(t), atol=1e-6)
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["pairs"] == 1001.0
