"""Joint-Align end to end through ``crossalign fit`` with the shipped recipe on the tiny BERT:
the export is a plain HF model (transformers and BERTScore load it with no crossalign code),
TEXT travels with it to the scorer, and 2 DDP processes (gloo, CPU) equal 1 process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from tests.conftest import EN, ES
from train.cli import main

ROOT = Path(__file__).resolve().parents[3]
RECIPE = ROOT / "recipes" / "bible-es-en-encoder" / "joint-align.yaml"


def _recipe(tmp_path: Path, tiny_bert: Path, run: str, **data) -> Path:
    src, tgt = tmp_path / "train.es", tmp_path / "train.en"
    src.write_text("".join(s + "\n" for s in ES * 2), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for t in EN * 2), encoding="utf-8")
    cfg = yaml.safe_load(RECIPE.read_text())
    cfg["trainer"].update(max_epochs=3, val_check_interval=2, default_root_dir=str(tmp_path / run),
                          enable_progress_bar=False, accelerator="cpu")
    cfg["model"]["init_args"].update(lr=1e-3, semantic_top=20)
    for cb in cfg["trainer"]["callbacks"]:
        if cb["class_path"].endswith("SaveEncoder"):
            cb["init_args"]["norm_sentences"] = 10
    cfg["data"]["init_args"].update(corpora=[{"src": str(src), "tgt": str(tgt), "src_lang": "es",
                                 "val_src": str(src), "val_tgt": str(tgt)}],
                       encoder=str(tiny_bert), max_sentences=None, val_sentences=6, batch_size=4,
                       progress=False, **data)
    path = tmp_path / f"{run}.yaml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    return path


def _aligned_distance(model_dir, tiny_bert) -> float:
    """Mean squared distance of word k to word k (the toy's parallel words) at the last layer."""
    from alignment.encoding.encoder import Encoder, EncoderSpec

    enc = Encoder(EncoderSpec(str(model_dir)), device="cpu")
    total, n = 0.0, 0
    for s, t in zip(ES, EN):
        a, b = enc.encode_words([s.split(), t.split()], progress=False)
        m = min(len(a), len(b))
        total += float(((a[:m] - b[:m]) ** 2).sum())
        n += m
    return total / n


def test_fit_exports_a_plain_hf_model_that_transformers_and_bertscore_load(tmp_path, tiny_bert,
                                                                           capsys):
    assert main(["fit", "--config", str(_recipe(tmp_path, tiny_bert, "run"))]) == 0
    export = tmp_path / "run" / "export"
    meta = json.loads((export / "remap.json").read_text())
    assert meta["encoder_weights"] == "." and meta["mapping_type"] == "norm"
    assert "ft:joint_align@" in meta["signature"] and meta["selection"]["criterion"] == "semantic"
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert {"semantic", "pivot_drift", "pivot_cosine", "selected_step"} <= set(metrics)

    from transformers import AutoModel  # no crossalign code involved

    tuned, original = AutoModel.from_pretrained(export), AutoModel.from_pretrained(tiny_bert)
    changed = [k for k, v in tuned.state_dict().items()
               if not torch.equal(v, original.state_dict()[k])]
    assert changed  # the encoder itself was fine-tuned
    assert _aligned_distance(export, tiny_bert) < 0.8 * _aligned_distance(tiny_bert, tiny_bert)

    from safetensors.numpy import load_file

    stats = load_file(str(export / "norm.safetensors"))
    assert set(stats) == {"mean.es", "std.es", "mean.en", "std.en"}

    import bert_score
    from transformers import AutoTokenizer

    plain = tmp_path / "original"  # the tiny BERT with its length set, as the export has it
    original.save_pretrained(plain)
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    tok.model_max_length = 64
    tok.save_pretrained(plain)
    cands, refs = ["the dog eats bread .", "the house is big ."], ["the dog eats bread .", "a cat ."]
    _, _, f_tuned = bert_score.score(cands, refs, model_type=str(export), num_layers=2)
    _, _, f_orig = bert_score.score(cands, refs, model_type=str(plain), num_layers=2)
    assert abs(float(f_tuned[0]) - 1) < 1e-4  # identical sentences
    assert abs(float(f_tuned[1]) - float(f_orig[1])) > 1e-4  # the fine-tuned weights were used

    from alignment import load_remapped

    remapped = load_remapped(export)
    (words, vecs), = remapped.encode(["la casa es grande ."])
    np.testing.assert_allclose(stats["mean.es"].shape, (32,))
    assert vecs.shape == (5, 32) and np.isfinite(vecs).all()
    (tmp_path / "s").write_text("la casa es grande .\n", encoding="utf-8")
    (tmp_path / "h").write_text("the house is big .\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["score", "--src", str(tmp_path / "s"), "--hyp", str(tmp_path / "h"),
                 "--encoder", str(export)]) == 0
    assert "map:norm#" in capsys.readouterr().out


def test_text_normalisation_travels_with_the_export_to_the_scorer(tmp_path, tiny_bert, capsys):
    assert main(["fit", "--config", str(_recipe(tmp_path, tiny_bert, "text", text=True))]) == 0
    export = tmp_path / "text" / "export"
    meta = json.loads((export / "remap.json").read_text())
    assert meta["text"]["rules"] == ["contractions", "noun-adj"]
    assert "|text:es:apertium-spa#" in meta["signature"]

    from alignment import load_remapped

    remapped = load_remapped(export)
    (words, _), = remapped.encode(["el perro del rey ."], side="src")
    assert words == ["el", "perro", "de", "el", "rey", "."]
    (words, _), = remapped.encode(["el perro del rey ."], side="tgt")  # the pivot: untouched
    assert "del" in words
    (tmp_path / "s").write_text("la casa blanca del rey .\n", encoding="utf-8")
    (tmp_path / "h").write_text("the white house of the king .\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["score", "--src", str(tmp_path / "s"), "--hyp", str(tmp_path / "h"),
                 "--encoder", str(export)]) == 0
    assert "|text:es:apertium-spa#" in capsys.readouterr().out


def test_two_ddp_processes_on_cpu_equal_one_process(tmp_path, tiny_bert):
    """Same seed, same data: 2 gloo processes (each half of every global batch) give the
    weights one process gives. The two-process run goes first: its rank 0 aligns (eflomal has
    no seed) and rank 1 must read that alignment, or setup fails.

    Both run in float64: a bias whose true gradient is 0 at the first step (the trained layer's
    output LayerNorm bias: the alignment loss ignores a shift common to all vectors, and the
    anchor term is 0 at the start) gets float32 rounding (~1e-7) as its gradient, and Adam turns
    any gradient far above its eps into a step of ~lr per element, so in float32 the two
    summation orders can end 7% of that tensor's travel apart; float64 rounding stays below eps.
    What is compared (sharding, loss scaling, gradient averaging) does not depend on the dtype."""
    from safetensors.torch import load_file

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = {}
    for name, extra in (("two", ["--trainer.devices", "2", "--trainer.strategy", "ddp"]), ("one", [])):
        recipe = _recipe(tmp_path, tiny_bert, name, cache_dir=str(tmp_path / "cache"))
        done = subprocess.run([sys.executable, "-m", "train.cli", "fit", "--config", str(recipe),
                               "--trainer.precision", "64-true", *extra], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        runs[name] = load_file(str(tmp_path / name / "export" / "model.safetensors"))
    assert len(list((tmp_path / "cache" / "alignments").iterdir())) == 1  # one alignment, shared
    original = load_file(str(Path(tiny_bert) / "model.safetensors"))
    one_meta = json.loads((tmp_path / "one" / "metrics.json").read_text())
    two_meta = json.loads((tmp_path / "two" / "metrics.json").read_text())
    assert one_meta["selected_step"] == two_meta["selected_step"]
    moved, total_gap, total_travel, apart = 0, 0.0, 0.0, []
    for key, value in runs["one"].items():
        assert value.dtype == torch.float64
        if key.endswith("attention.self.key.bias"):
            # softmax ignores a constant added to every score of a query: this bias's true
            # gradient is 0 at every step, its computed one is rounding, its travel ~0
            continue
        travel = float((value - original[key].double()).norm())
        gap = float((runs["two"][key] - value).norm())
        if gap > 1e-5 * travel + 1e-12:  # measured: at most ~2e-9 of a tensor's travel
            apart.append((key, gap, travel))
        total_gap, total_travel = total_gap + gap, total_travel + travel
        moved += travel > 0
    assert not apart, apart  # every tensor that differs, to tell one from many
    assert moved > 10
    assert total_gap <= 1e-7 * total_travel, (total_gap, total_travel)  # the model as a whole
