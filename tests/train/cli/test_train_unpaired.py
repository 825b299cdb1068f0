"""``crossalign train`` with a method that learns without pairs: two monolingual files of
different lengths (no line is another's translation) give an export that ``score`` uses."""
from __future__ import annotations

import json

import pytest

from tests.conftest import EN, ES
from train.cli import main


@pytest.fixture
def monolingual(tmp_path):
    """Spanish and English files of different lengths, the English in another order."""
    src, tgt = tmp_path / "mono.es", tmp_path / "mono.en"
    src.write_text("".join(s + "\n" for s in ES + ES[:3]))
    tgt.write_text("".join(t + "\n" for t in EN[::-1]))
    return str(src), str(tgt)


@pytest.mark.parametrize("method", ["mining:min_sentences=2,rounds=2", "vecmap:max_iterations=20",
                                    "muse", "gan_realnvp:transforms=2,hidden=16,critic_hidden=16"])
def test_an_unsupervised_method_trains_from_two_monolingual_files(monolingual, tiny_bert,
                                                                  tmp_path, capsys, method):
    src, tgt = monolingual
    out = tmp_path / "run"
    code = main(["train", "--method", method, "--src", src, "--tgt", tgt, "--encoder",
                 str(tiny_bert), "--layer", "2", "--out", str(out), "--epochs", "1"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert printed.out.strip().splitlines() == [printed.out.strip()]  # the result line alone
    run = json.loads((out / "run.json").read_text())
    assert (run["src_lang"], run["tgt_lang"]) == ("es", "en")
    import yaml

    config = yaml.safe_load((out / "config.yaml").read_text())
    assert config["model"]["init_args"]["method"] == method.split(":")[0]
    assert config["data"]["init_args"]["sampling"] == "all"  # both files whole
    (tmp_path / "h.en").write_text("".join(t + "\n" for t in EN[:4]))
    (tmp_path / "s.es").write_text("".join(s + "\n" for s in ES[:4]))
    assert main(["score", "--encoder", str(out / "export"), "--src", str(tmp_path / "s.es"),
                 "--hyp", str(tmp_path / "h.en"), "-b", "-q"]) == 0
    assert 0 < float(capsys.readouterr().out) <= 1


@pytest.mark.parametrize("extra,parameter", [(["--alignment", "links.txt"], "alignment"),
                                             (["--criterion", "val_p1"], "criterion")])
def test_pair_only_options_are_refused_for_unsupervised_methods(monolingual, tmp_path, capsys,
                                                                extra, parameter):
    src, tgt = monolingual
    (tmp_path / "links.txt").write_text("0-0\n")
    code = main(["train", "--method", "muse", "--src", src, "--tgt", tgt,
                 "--out", str(tmp_path / "run"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and f"parameter '{parameter}'" in err and not (tmp_path / "run").exists()
