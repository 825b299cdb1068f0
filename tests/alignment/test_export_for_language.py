"""A jointly fine-tuned export (one encoder for several languages) exported again for another of
its languages: same weights byte for byte, that language's NORM head, a verified remap.json."""
import numpy as np
import pytest

from alignment.errors import InputError


@pytest.fixture
def joint_export(tmp_path, tiny_bert):
    from alignment.encoding.encoder import Encoder, EncoderSpec
    from alignment.encoding.norm_head import running_norm
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_encoder

    enc = Encoder(EncoderSpec(str(tiny_bert), 1))
    rng = np.random.default_rng(0)
    stats = {lang: (rng.normal(size=enc.dim), rng.uniform(0.5, 2, size=enc.dim))
             for lang in ("cs", "de", "en")}
    data = DataProvenance(enc.identity(), "f" * 16, 10, 40, "news", "cs", "en", aligner="test")
    export_encoder(tmp_path / "joint", enc.model, enc.tokenizer, running_norm(stats["cs"], stats["en"]),
                   data, stats, extra={"fine_tuned": "joint_align"})
    return tmp_path / "joint", stats


def test_an_export_for_another_language_has_its_head_and_the_same_weights(tmp_path, joint_export):
    from alignment.export.remapped import export_for_language, load_remapped

    source, stats = joint_export
    meta = export_for_language(source, "de", tmp_path / "de")
    assert (meta["src_lang"], meta["tgt_lang"]) == ("de", "en")
    assert meta["derived_from"]["src_lang"] == "cs" and meta["fine_tuned"] == "joint_align"
    original = load_remapped(source)
    derived = load_remapped(tmp_path / "de")  # verified: fingerprints, signature, revision
    assert derived.encoder.revision == original.encoder.revision
    assert (tmp_path / "de" / "model.safetensors").read_bytes() == (source / "model.safetensors").read_bytes()
    x = np.ones((2, derived.mapping.dim))
    # NORM: each side standardised by its own language's statistics
    assert np.allclose(derived.mapping.map_array(x, "src"), (x - stats["de"][0]) / stats["de"][1], atol=1e-5)
    assert np.allclose(original.mapping.map_array(x, "src"), (x - stats["cs"][0]) / stats["cs"][1], atol=1e-5)
    assert np.allclose(derived.mapping.map_array(x, "tgt"), (x - stats["en"][0]) / stats["en"][1], atol=1e-5)


def test_only_a_fine_tuned_export_with_the_language_is_exported_again(tmp_path, joint_export, capsys):
    from alignment.export.remapped import export_for_language
    from train.cli import main

    source, _ = joint_export
    with pytest.raises(InputError, match="has statistics for cs, de, en, not 'fi'"):
        export_for_language(source, "fi", tmp_path / "fi")
    assert main(["export", "--export", str(source), "--out", str(tmp_path / "x")]) == 2
    assert "--export needs --src-lang" in capsys.readouterr().err
    assert main(["export", "--export", str(source), "--src-lang", "de", "--out", str(tmp_path / "de")]) == 0
    assert main(["export", "--export", str(tmp_path / "de"), "--src-lang", "cs", "--tgt-lang", "de",
                 "--out", str(tmp_path / "cs-de")]) == 0
    assert not (tmp_path / "x").exists() and not (tmp_path / "fi").exists()
