"""``crossalign joint-align`` resumes an interrupted fine-tuning only when every setting matches."""
import json

import pytest
from safetensors.torch import load_file

from alignment.errors import InputError
from tests.conftest import EN, ES
from train.experiments.joint_align_comparison import JointAlignConfig, check_variants, fine_tune


def _weights(run_dir):
    return load_file(str(run_dir / "export" / "model.safetensors"))


def test_a_rerun_resumes_its_own_checkpoint_and_other_settings_start_afresh(tmp_path, tiny_bert,
                                                                           capsys):
    data = tmp_path / "bible"
    data.mkdir()
    for name, lines in (("train.es", ES * 3), ("train.en", EN * 3), ("dev.es", ES), ("dev.en", EN)):
        (data / name).write_text("".join(s + "\n" for s in lines), encoding="utf-8")
    cfg = JointAlignConfig(data_dir=str(data), encoder=str(tiny_bert), train_verses=None,
                           val_every=3, val_verses=len(ES), epochs=1, lr=1e-3, progress=False,
                           cache_dir=str(tmp_path / "cache"))
    run = tmp_path / "run"
    fine_tune(cfg, False, run)
    first = _weights(run)
    assert (run / "checkpoints" / "last.ckpt").is_file()
    assert json.loads((run / "settings.json").read_text())["lr"] == 1e-3

    capsys.readouterr()
    fine_tune(cfg, False, run)  # same settings: picks up the finished run's last checkpoint
    assert "resuming run" in capsys.readouterr().out
    again = _weights(run)
    assert all((again[k] == first[k]).all() for k in first)

    fine_tune(JointAlignConfig(**{**cfg.__dict__, "lr": 5e-4}), False, run)  # other settings
    assert "resuming" not in capsys.readouterr().out
    fresh = _weights(run)
    assert any(not (fresh[k] == first[k]).all() for k in first)
    assert json.loads((run / "settings.json").read_text())["lr"] == 5e-4


def test_another_pair_fine_tunes_on_its_own_files(tmp_path, tiny_bert):
    """``--pair de-en`` reads train.de/dev.de (no Spanish file exists) and records the pair."""
    data = tmp_path / "bible-de-en"
    data.mkdir()
    # the Spanish sentences stand in for German text: what matters is which file is read
    for name, lines in (("train.de", ES * 3), ("train.en", EN * 3), ("dev.de", ES), ("dev.en", EN)):
        (data / name).write_text("".join(s + "\n" for s in lines), encoding="utf-8")
    cfg = JointAlignConfig(pair="de-en", data_dir=str(data), encoder=str(tiny_bert),
                           train_verses=None, val_every=3, val_verses=len(ES), epochs=1, lr=1e-3,
                           progress=False, cache_dir=str(tmp_path / "cache"))
    run = tmp_path / "run"
    fine_tune(cfg, False, run)
    assert (run / "export" / "model.safetensors").is_file()
    assert json.loads((run / "settings.json").read_text())["pair"] == "de-en"


@pytest.mark.parametrize("pair, variants, expected", [
    ("es-en", None, ["plain", "text"]), ("de-en", None, ["plain"]),
    ("de-en", ["text"], "TEXT rewrites Spanish"), ("es-en", ["norm"], "unknown variant")])
def test_variants_default_by_pair_and_text_is_spanish_only(pair, variants, expected):
    cfg = JointAlignConfig(pair=pair, variants=variants)
    if isinstance(expected, list):
        check_variants(cfg)
        assert cfg.variants == expected
    else:
        with pytest.raises(InputError, match=expected):
            check_variants(cfg)
