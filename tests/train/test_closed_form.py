import json

import numpy as np
import torch

from alignment.mappings import load_mapping
from alignment.moments import PairMoments
from alignment.mappings import fit_closed_form as fit_from_moments
from train.fitting import fit_closed_form


def _data(n=600, d=12, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32) + 1.0
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    y = (x @ q + 0.05 * rng.normal(size=(n, d)) - 2.0).astype(np.float32)
    return x, y


def test_streaming_lightning_fit_equals_in_memory_fit():
    x, y = _data()
    for spec in ("clp", "center > clp", "umd > clp", "norm"):
        streamed = fit_closed_form(x, y, spec, batch_size=64)  # ten batches
        direct = fit_from_moments(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)), spec)
        t = torch.from_numpy(x[:10])
        assert torch.allclose(streamed(t), direct(t), atol=1e-5)


def test_fit_saves_the_mapping_explicitly_and_it_reloads(tmp_path):
    x, y = _data()
    mapping = fit_closed_form(x, y, "center > clp", tmp_path / "run")
    assert (tmp_path / "run" / "mapping" / "mapping.safetensors").is_file()
    again = load_mapping(tmp_path / "run" / "mapping", dim=12)
    t = torch.from_numpy(x[:5])
    assert torch.equal(again(t), mapping(t))
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["pairs"] == 600.0
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["mapping_type"] == "center→clp" and run["encoder"] is None
    assert not (tmp_path / "run" / "export").exists()  # no encoder: nothing to export


def test_same_seed_same_data_same_mapping(tmp_path):
    x, y = _data()
    a = fit_closed_form(x, y, "umd > clp")
    b = fit_closed_form(x, y, "umd > clp")
    assert a.fingerprint() == b.fingerprint()
