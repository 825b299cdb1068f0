"""``train --sentence-map``: one command gives an export whose scores add the sentence-level
remap; bad settings are refused before any work."""
import json

import numpy as np

from alignment.xmover.scorer import XMoverScorer
from alignment.xmover.sentence_map import load_sentence_map
from tests.conftest import EN, ES
from tests.reliability.test_writes_stay_in_their_folder import _one_line, _text, _train
from train.cli import main


def test_train_puts_a_sentence_map_into_its_export_and_score_uses_it(tmp_path, tiny_bert, capsys):
    src, tgt, align = _text(tmp_path / "in")
    out = tmp_path / "run"
    assert main(_train(src, tgt, align, out, tiny_bert, "--sentence-map-kind", "orthogonal",
                       "--sentence-weight", "0.3")) == 0
    export = out / "export"
    smap = load_sentence_map(export / "sentence_map")
    assert (smap.kind, smap.mapped_lang, smap.other_lang, smap.coef) == ("orthogonal", "es", "en", 0.3)
    assert smap.data["n_pairs"] == 2 * len(ES)
    meta = json.loads((export / "remap.json").read_text())
    assert meta["sentence_map"] == smap.describe()
    manifest = json.loads((export / ".crossalign-output.json").read_text())["files"]
    assert "sentence_map/sentence_map.safetensors" in manifest  # --overwrite may remove it
    setting = json.loads((export / "scoring.json").read_text())  # the weight's one home
    assert setting["weights"] == {"xmover": 1.0, "sentence": 0.3} and "measured" not in setting
    assert "scoring.json" in manifest
    capsys.readouterr()
    hyp, srcs = tmp_path / "h.en", tmp_path / "s.es"
    hyp.write_text("\n".join(EN[:3]) + "\n")
    srcs.write_text("\n".join(ES[:3]) + "\n")
    assert main(["score", "--encoder", str(export), "--src", str(srcs), "--hyp", str(hyp),
                 "--format", "json", "-q"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert f"map:{smap.describe()}*0.3" in scored["signature"]
    plain = XMoverScorer(str(export), sentence_map="none").score(ES[:3], EN[:3])
    assert not np.allclose(scored["segments"], plain.final)

    # XMoverScore left out (from English: the sentence map alone): the score is 0.3 × the term
    assert main(["score", "--encoder", str(export), "--src", str(srcs), "--hyp", str(hyp),
                 "--xmover-weight", "0", "--format", "json", "-q"]) == 0
    alone = json.loads(capsys.readouterr().out)
    term = XMoverScorer(str(export)).score(ES[:3], EN[:3]).sentence
    np.testing.assert_allclose(alone["segments"], 0.3 * term, rtol=1e-6)
    assert "|xm:0|" in alone["signature"] and "|xm:" not in scored["signature"]
    # without its map the sentence term is the encoder's own cosine, at the export's weight
    assert main(["score", "--encoder", str(export), "--src", str(srcs), "--hyp", str(hyp),
                 "--xmover-weight", "0", "--sentence-map", "none", "--format", "json", "-q"]) == 0
    unmapped = json.loads(capsys.readouterr().out)["signature"]
    assert "|sent:L2,mean*0.3|" in unmapped
    assert main(["score", "--encoder", str(export), "--src", str(srcs), "--hyp", str(hyp),
                 "--xmover-weight", "0", "--sentence-weight", "0", "-q"]) == 2
    assert "needs another term" in capsys.readouterr().err
    assert main(["score", "--encoder", str(export), "--src", str(srcs), "--hyp", str(hyp),
                 "--xmover-weight", "-1", "-q"]) == 2
    assert "xmover-weight" in capsys.readouterr().err


def test_train_refuses_a_bad_sentence_map_setting_before_any_work(tmp_path, tiny_bert, capsys):
    src, tgt, align = _text(tmp_path / "in")
    for extra, named in [(["--sentence-map", "rotation"], "unknown sentence map kind 'rotation'"),
                         (["--sentence-map", "orthogonal", "--sentence-space", "x"],
                          "least-squares"),
                         (["--sentence-weight", "0.5"], "need --sentence-map"),
                         (["--sentence-pairs", "5"], "need --sentence-map"),
                         (["--sentence-map", "orthogonal", "--sentence-pairs", "1"],
                          "at least 2")]:
        out = tmp_path / "bad"
        assert main(_train(src, tgt, align, out, tiny_bert, *extra)) == 2
        assert named in _one_line(capsys.readouterr().err)
        assert not out.exists()


def test_train_reuse_keeps_the_sentence_vectors_and_gives_the_same_map(tmp_path, tiny_bert):
    from alignment.xmover.reuse import reuse_dir

    src, tgt, align = _text(tmp_path / "in")
    maps = []
    for k, extra in enumerate([[], ["--reuse"], ["--reuse"]]):
        out = tmp_path / f"run{k}"
        assert main(_train(src, tgt, align, out, tiny_bert, "--sentence-map-kind",
                           "least-squares", *extra)) == 0
        maps.append(load_sentence_map(out / "export" / "sentence_map"))
        if k == 1:
            kept = sorted(reuse_dir().glob("*.npz"))
            assert kept  # the first --reuse run wrote the vectors
    assert maps[0].fingerprint() == maps[1].fingerprint() == maps[2].fingerprint()
    assert sorted(reuse_dir().glob("*.npz")) == kept  # the second read them back
