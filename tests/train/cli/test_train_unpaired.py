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


def test_mining_keeps_its_sentence_pairs_and_fits_the_sentence_map_on_them(monolingual,
                                                                           tiny_bert, tmp_path,
                                                                           capsys):
    from alignment.unsupervised.iterated_mining import read_mined_pairs

    src, tgt = monolingual
    out = tmp_path / "run"
    code = main(["train", "--method", "mining:min_sentences=2,rounds=2", "--src", src, "--tgt",
                 tgt, "--encoder", str(tiny_bert), "--layer", "2", "--out", str(out),
                 "--sentence-map-kind", "least-squares"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    n_src, n_tgt = len(ES) + 3, len(EN)
    pairs = read_mined_pairs(out / "mined_pairs.tsv", n_src, n_tgt)
    assert len(pairs) >= 2 and len({i for i, _ in pairs}) == len(pairs)  # one pair a line
    assert f"on the {len(pairs)} mined sentence pairs" in printed.out
    meta = json.loads((out / "export" / "sentence_map" / "sentence_map.json").read_text())
    assert meta["data"]["n_pairs"] == len(pairs)  # the mined pairs, not the files' lines


def test_a_sentence_map_is_refused_for_a_method_that_mines_no_pairs(monolingual, tmp_path,
                                                                    capsys):
    src, tgt = monolingual
    code = main(["train", "--method", "vecmap", "--src", src, "--tgt", tgt, "--out",
                 str(tmp_path / "run"), "--sentence-map-kind", "least-squares"])
    err = capsys.readouterr().err
    assert code == 2 and "parameter 'sentence-map-kind'" in err and "mining" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("text,line", [("i\tj\n1\t2\n", 1), ("src_line\ttgt_line\n1\t2\n3\n", 3),
                                       ("src_line\ttgt_line\n1\t99\n", 2)])
def test_a_bad_mined_pairs_file_is_named_with_its_line(tmp_path, text, line):
    from alignment.errors import InputError
    from alignment.unsupervised.iterated_mining import read_mined_pairs

    path = tmp_path / "mined_pairs.tsv"
    path.write_text(text)
    with pytest.raises(InputError, match=f"{path}:{line}:"):
        read_mined_pairs(path, 5, 5)
