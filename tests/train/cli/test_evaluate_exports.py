"""``crossalign evaluate`` with several exports: each one against the first, with a paired
interval, and every export's vectors from its own encoder."""
import json
import shutil

import pytest
import torch

from alignment.encoding.encoder import load_encoder
from alignment.export.provenance import DataProvenance
from alignment.export.remapped import export_remapped
from alignment.mappings import fit_composition
from alignment.mappings.moments import PairMoments
from tests.conftest import EN, ES, identity_alignment_file
from train.cli import main

P1 = "retrieval_cosine_src2tgt"


def _export(path, encoder_dir, spec: str, seed: int, dim: int = 32):
    torch.manual_seed(seed)
    mapping = fit_composition(PairMoments.of(torch.randn(200, dim), torch.randn(200, dim)), spec)
    export_remapped(path, mapping, DataProvenance(load_encoder(str(encoder_dir), layer=-1).identity(),
                                                  "abc123", 1500, 200, "bible", "es", "en"))
    return path


@pytest.fixture
def other_bert(tmp_path, tiny_bert):
    """Another encoder with the tiny BERT's tokenizer: its own random weights, 48 wide (the
    tiny one is 32), so that vectors taken from the wrong encoder could not be mapped at all."""
    from transformers import BertConfig, BertModel

    out = tmp_path / "other-bert"
    shutil.copytree(tiny_bert, out)
    config = BertConfig.from_pretrained(str(tiny_bert))
    config.hidden_size, config.intermediate_size = 48, 96
    torch.manual_seed(1)
    BertModel(config).save_pretrained(str(out))
    return out


def _evaluate(tmp_path, parallel_files, exports, name):
    src, tgt = parallel_files
    align = identity_alignment_file(tmp_path / "align.txt", ES, EN)
    assert main(["evaluate", "--encoder", *map(str, exports), "--src", str(src), "--tgt", str(tgt),
                 "--alignment", str(align), "--bootstrap", "200", "--out", str(tmp_path / name)]) == 0
    return json.loads((tmp_path / name / "metrics.json").read_text())


def test_every_export_is_compared_with_the_first(tmp_path, parallel_files, tiny_bert, capsys):
    a = _export(tmp_path / "a", tiny_bert, "clp", 0)
    same = _export(tmp_path / "same", tiny_bert, "clp", 0)
    b = _export(tmp_path / "b", tiny_bert, "center > clp", 5)
    m = _evaluate(tmp_path, parallel_files, [a, same, b], "eval")
    out = capsys.readouterr().out
    assert "es→en P@1 against clp (a) (points; paired bootstrap 95% CI" in out
    first, twin, other = "clp (a)", "clp (same)", "center > clp (b)"
    assert (m[f"{twin}/delta_vs_first"], m[f"{twin}/delta_lo"], m[f"{twin}/delta_hi"]) == (0, 0, 0)
    assert m[f"{other}/delta_vs_first"] == pytest.approx(m[f"{other}/{P1}"] - m[f"{first}/{P1}"])
    assert m[f"{other}/delta_lo"] <= m[f"{other}/delta_vs_first"] <= m[f"{other}/delta_hi"]
    assert "no difference" in out.split(twin)[-1].splitlines()[0]


def test_exports_of_different_encoders_are_each_encoded_by_their_own(
        tmp_path, parallel_files, tiny_bert, other_bert, capsys):
    a = _export(tmp_path / "a", tiny_bert, "clp", 0)
    b = _export(tmp_path / "b", other_bert, "clp", 0, dim=48)  # another encoder, 48 wide
    both = _evaluate(tmp_path, parallel_files, [a, b], "both")
    alone = _evaluate(tmp_path, parallel_files, [b], "alone")
    row = "clp (b)"
    shared = {k.split("/", 1)[1] for k in both if k.startswith(row + "/")} - {
        "delta_vs_first", "delta_lo", "delta_hi"}
    assert shared and all(both[f"{row}/{k}"] == alone[f"{row}/{k}"] for k in shared)
    # b's 48-d map ran on 48-d vectors: a's 32-d encoder could not have produced them (the
    # metric values themselves may coincide by chance on ten random-encoder sentences)
    assert load_encoder(str(other_bert), layer=-1).dim == 48 != load_encoder(str(tiny_bert),
                                                                             layer=-1).dim
    assert json.loads((b / "remap.json").read_text())["dim"] == 48
    assert "unmapped (clp (a)'s encoder)" in capsys.readouterr().out


def test_a_bad_resample_count_is_refused_before_any_work(tmp_path, parallel_files, tiny_bert, capsys):
    a = _export(tmp_path / "a", tiny_bert, "clp", 0)
    src, tgt = parallel_files
    assert main(["evaluate", "--encoder", str(a), "--src", str(src), "--tgt", str(tgt),
                 "--bootstrap", "0", "--out", str(tmp_path / "o")]) == 2
    assert "bootstrap" in capsys.readouterr().err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("task", [["rfeval", "--data", "j.tsv"],
                                  ["challenge", "--src", "a", "--ref", "b", "--lexicon", "l",
                                   "--encoder", "e"]])
def test_interval_options_count_before_or_after_the_task(task):
    from train.cli import build_parser

    parse = build_parser().parse_args
    assert (lambda a: (a.bootstrap, a.seed))(parse(["evaluate", *task])) == (1000, 0)
    assert (lambda a: (a.bootstrap, a.seed))(
        parse(["evaluate", "--bootstrap", "500", "--seed", "3", *task])) == (500, 3)
    assert (lambda a: (a.bootstrap, a.seed))(
        parse(["evaluate", *task, "--bootstrap", "300", "--seed", "4"])) == (300, 4)
