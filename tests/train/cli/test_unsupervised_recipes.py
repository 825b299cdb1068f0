"""The shipped unsupervised recipes run end to end through ``crossalign fit`` on monolingual
text (a tiny real BERT, real files), and their exports load like any other."""
import json
from pathlib import Path

import pytest
import torch
import yaml

from tests.conftest import EN, ES
from train.cli import main

ROOT = Path(__file__).resolve().parents[3] / "recipes" / "bible-es-en-unpaired"


def _shrink(recipe: Path, tmp_path: Path, data: dict) -> Path:
    cfg = yaml.safe_load(recipe.read_text())
    cfg["trainer"].update(max_epochs=2, default_root_dir=str(tmp_path / "run"),
                          enable_progress_bar=False, accelerator="cpu")
    for cb in cfg["trainer"]["callbacks"]:
        if cb["class_path"].endswith("SelfTraining"):
            cb["init_args"].update(rounds=2, top=20, epochs=1)
            if cb["init_args"].get("refit") == "adversarial":
                cb["init_args"].update(map_steps=3, critic_warmup=2, batch_size=16,
                                       adversarial={"critic_hidden": 16})
    args = cfg["model"]["init_args"]
    for key, value in {"critic_hidden": 16, "hidden": 16, "transforms": 2, "max_rows": 40}.items():
        if key in args:
            args[key] = value
    cfg["data"]["init_args"].update(data)
    path = tmp_path / recipe.name
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    return path


@pytest.mark.parametrize("name", ["muse.yaml", "gan-realnvp.yaml", "gan-realnvp-algorithm1.yaml",
                                  "vecmap.yaml"])
def test_unsupervised_recipe_fits_saves_and_exports(name, tmp_path, tiny_bert, capsys):
    src, tgt = tmp_path / "mono.es", tmp_path / "mono.en"
    src.write_text("".join(s + "\n" for s in ES * 3), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for t in EN[:7] * 2), encoding="utf-8")  # other lengths
    recipe = _shrink(ROOT / name, tmp_path, {
        "src": str(src), "tgt": str(tgt), "encoder": str(tiny_bert), "max_sentences": None,
        "sampling": "all", "batch_size": 16, "progress": False})
    assert main(["fit", "--config", str(recipe)]) == 0
    run = tmp_path / "run"
    meta = json.loads((run / "export" / "remap.json").read_text())
    assert meta["mapping_type"].startswith("center > ")
    assert "monolingual-all" in json.dumps(json.loads((run / "run.json").read_text()))
    if name != "vecmap.yaml":
        rounds = json.loads((run / "self-training" / "rounds.json").read_text())
        assert [r["round"] for r in rounds] == [0, 1, 2] and rounds[1]["lexicon"] > 0
    if name.startswith("gan-realnvp"):  # a flow: refitted through the trainer, checkpointed
        refit = torch.load(run / "self-training" / "round-1" / "checkpoints" / "last.ckpt",
                           weights_only=False)  # this test's own file
        adversarial = "critic_warmup" in refit["hyper_parameters"]  # ConstrainedGanFit's
        assert adversarial == (name == "gan-realnvp-algorithm1.yaml")

    from alignment import load_remapped

    import numpy as np

    remapped = load_remapped(run / "export")
    (words, mapped), = remapped.encode(["la casa es grande ."])
    raw = remapped.encoder.encode_words([words])[0]
    assert mapped.shape == (5, 32) and np.isfinite(mapped).all()
    assert not np.allclose(mapped, raw)  # the map was applied
    # and the XMoverScore scorer takes the export like any other
    (tmp_path / "s").write_text("".join(x + "\n" for x in ES[:3]), encoding="utf-8")
    (tmp_path / "h").write_text("".join(x + "\n" for x in EN[:3]), encoding="utf-8")
    capsys.readouterr()
    assert main(["score", "--encoder", str(run / "export"), "--src", str(tmp_path / "s"),
                 "--hyp", str(tmp_path / "h")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and all(0 < float(x) <= 1 for x in lines[:3])
    assert f"map:{meta['mapping_type']}#{remapped.mapping.applied_fingerprint()}" in lines[-1]


def test_monolingual_data_is_checked_before_encoding(tmp_path, tiny_bert):
    src, tgt = tmp_path / "mono.es", tmp_path / "mono.en"
    src.write_text("la casa\n\nel perro\n", encoding="utf-8")
    tgt.write_text("the house\n", encoding="utf-8")
    recipe = _shrink(ROOT / "muse.yaml", tmp_path, {
        "src": str(src), "tgt": str(tgt), "encoder": str(tiny_bert), "sampling": "all",
        "progress": False})
    assert main(["fit", "--config", str(recipe)]) == 2
    bad = _shrink(ROOT / "muse.yaml", tmp_path, {"sampling": "halves"})
    assert main(["fit", "--config", str(bad)]) == 2


def test_unsupervised_models_read_unpaired_data_and_the_old_key_still_works(tmp_path, tiny_bert):
    """The adversarial and self-learning fitters name the unpaired data module (its rows are not translations); a 0.2
    recipe's ``monolingual:`` is read as ``sampling:`` with a deprecation warning."""
    import warnings

    from train.data.paired import PairedVectorDataModule
    from train.data.unpaired import UnpairedVectorDataModule

    from train.fitting.plan import plan_fit

    for method in ("gan_realnvp", "muse", "vecmap", "mining"):
        assert plan_fit(method).datamodule_class is UnpairedVectorDataModule
    assert "sampling" not in PairedVectorDataModule.__init__.__code__.co_varnames
    src, tgt = tmp_path / "a.es", tmp_path / "a.en"
    src.write_text("".join(s + "\n" for s in ES * 2), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for t in EN * 2), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = UnpairedVectorDataModule(str(src), str(tgt), encoder=str(tiny_bert),
                                       monolingual="disjoint", progress=False)
    assert any("data.sampling" in str(w.message) for w in caught)
    new = UnpairedVectorDataModule(str(src), str(tgt), encoder=str(tiny_bert),
                                   sampling="disjoint", progress=False)
    old.setup(), new.setup()
    assert torch.equal(old.x, new.x) and torch.equal(old.y, new.y)
    assert old.provenance.data_fingerprint == new.provenance.data_fingerprint


def test_a_recipe_whose_data_is_not_what_its_model_trains_on_is_refused(tmp_path, tiny_bert,
                                                                         capsys):
    """A recipe names its data class; an unsupervised model on paired data (or a 0.3 recipe
    that still lists the unpaired settings without a class_path) stops with one line that says
    which data the model trains on, before anything is encoded."""
    src, tgt = tmp_path / "mono.es", tmp_path / "mono.en"
    src.write_text("".join(s + "\n" for s in ES), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for t in EN), encoding="utf-8")
    recipe = _shrink(ROOT / "muse.yaml", tmp_path, {
        "src": str(src), "tgt": str(tgt), "encoder": str(tiny_bert), "progress": False})
    cfg = yaml.safe_load(recipe.read_text())
    args = cfg["data"]["init_args"]
    for key in ("sampling", "per_type", "max_tokens"):
        args.pop(key)
    cfg["data"]["class_path"] = "train.data.paired.PairedVectorDataModule"
    recipe.write_text(yaml.safe_dump(cfg))
    capsys.readouterr()
    assert main(["fit", "--config", str(recipe)]) == 2
    err = capsys.readouterr().err
    assert "MuseFit fits 'center > muse' on unpaired data" in err
    assert "set data: class_path: train.data.unpaired.UnpairedVectorDataModule" in err
    assert not (tmp_path / "run" / "mapping").exists()
    cfg = yaml.safe_load(_shrink(ROOT / "muse.yaml", tmp_path, {}).read_text())
    cfg["data"] = cfg["data"]["init_args"]  # 0.3's flat form: read as paired data
    recipe.write_text(yaml.safe_dump(cfg))
    assert main(["fit", "--config", str(recipe)]) == 2
    err = capsys.readouterr().err
    assert "class_path" in err and "UnpairedVectorDataModule" in err


def test_mining_recipe_mines_aligns_fits_and_exports(tmp_path, tiny_bert, capsys):
    """``mining`` from its recipe: real eflomal on the mined sentence pairs, the kept
    iteration's ``center > clp`` saved and exported; each iteration is reported."""
    pytest.importorskip("eflomal")
    src, tgt = tmp_path / "mono.es", tmp_path / "mono.en"
    src.write_text("".join(s + "\n" for s in ES), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for t in reversed(EN)), encoding="utf-8")  # another order
    recipe = _shrink(ROOT / "mining.yaml", tmp_path, {
        "src": str(src), "tgt": str(tgt), "encoder": str(tiny_bert), "max_sentences": None,
        "batch_size": 16, "val_fraction": 0.3, "progress": False})
    cfg = yaml.safe_load(recipe.read_text())
    cfg["trainer"]["max_epochs"] = 1
    cfg["model"]["init_args"].update(threshold=0.5, min_sentences=2, rounds=2)
    recipe.write_text(yaml.safe_dump(cfg))
    assert main(["fit", "--config", str(recipe)]) == 0
    run = tmp_path / "run"
    meta = json.loads((run / "export" / "remap.json").read_text())
    assert meta["mapping_type"] == "center > clp"
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["mining_iterations"] >= 1 and metrics["mined_sentences"] >= 2
    assert metrics["mined_word_pairs"] > metrics["mined_sentences"]


def test_mining_refuses_data_without_sentences_or_validation_pools(tiny_bert):
    import numpy as np

    from alignment.errors import InputError
    from train.fitting.in_process import fit_method
    from train.data.unpaired import UnpairedVectorDataModule

    x = np.random.default_rng(0).normal(size=(40, 8)).astype(np.float32)
    dm = UnpairedVectorDataModule.from_arrays(x, x[::-1].copy(), val=(x[:10], x[10:20]))
    with pytest.raises(InputError, match="encoded sentences"):
        fit_method("mining", dm)
    with pytest.raises(InputError, match="mining fits its own stages"):
        fit_method("center > mining", dm)
    with pytest.raises(InputError, match="must be closed-form"):
        fit_method("mining:fit=clp_flow", dm)
