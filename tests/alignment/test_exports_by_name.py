"""Exports by name: a short name finds a shipped, cached or user-rooted export wherever a path
works, a path always wins, and ``crossalign exports`` lists them with their cards."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from alignment.export.named import SHIPPED, find_export, list_exports, resolve_export


def test_a_shipped_name_finds_its_folder_and_a_group_of_pairs(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # nothing called wmt17 here
    assert find_export("wmt17/de-en") == SHIPPED / "wmt17" / "de-en"
    assert find_export("wmt17") == SHIPPED / "wmt17"
    for bad in ("../exports/wmt17", "/etc", "wmt17/../mlqe", "a/b/c", "nosuch/de-en"):
        assert find_export(bad) is None
    assert resolve_export("bert-base-multilingual-cased") == "bert-base-multilingual-cased"


def test_a_path_wins_over_a_name_and_user_roots_come_first(monkeypatch, tmp_path):
    own = tmp_path / "roots" / "wmt17" / "de-en"
    own.mkdir(parents=True)
    (own / "remap.json").write_text("{}")
    monkeypatch.setenv("CROSSALIGN_EXPORTS", str(tmp_path / "roots"))
    assert find_export("wmt17/de-en") == own
    work = tmp_path / "work"
    (work / "wmt17" / "de-en").mkdir(parents=True)
    monkeypatch.chdir(work)
    assert resolve_export("wmt17/de-en") == "wmt17/de-en"  # the folder here, not a root's


def test_every_shipped_export_is_listed_with_its_card(monkeypatch, tmp_path):
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CROSSALIGN_EXPORTS", raising=False)
    listed = {e.name: e for e in list_exports()}
    shipped = {p.parent.relative_to(SHIPPED).as_posix() for p in SHIPPED.rglob("remap.json")}
    assert set(listed) == shipped and len(shipped) >= 13
    from alignment.export.recipe import Recipe

    for name in shipped:
        assert (SHIPPED / name / "README.md").is_file(), f"{name} has no card"
        Recipe.read(SHIPPED / name)  # every shipped export says how to rebuild it
    judged = [e for e in listed.values() if e.name.startswith(("wmt17/", "mlqe/"))]
    assert all(e.agreement and e.agreement_row for e in judged)
    value = float(listed["wmt17/de-en"].agreement.split()[0])
    assert -1 <= value <= 1 and listed["wmt17/de-en"].agreement.endswith("on wmt17 test")


def _tiny_export(root: Path, tiny_bert) -> Path:
    from alignment.encoding.encoder import load_encoder
    from alignment.export.provenance import DataProvenance
    from alignment.export.remapped import export_remapped
    from alignment.mappings import fit_composition
    from alignment.mappings.moments import PairMoments

    torch.manual_seed(0)
    mapping = fit_composition(PairMoments.of(torch.randn(200, 32), torch.randn(200, 32)),
                              "center > clp")
    ident = load_encoder(str(tiny_bert), layer=-1).identity()
    export_remapped(root / "mine" / "es-en", mapping,
                    DataProvenance(ident, "abc", 1000, 200, "bible", "es", "en"))
    return root / "mine" / "es-en"


def test_score_and_exports_take_a_users_export_by_name(monkeypatch, tmp_path, tiny_bert, capsys):
    from train.cli import main

    folder = _tiny_export(tmp_path / "roots", tiny_bert)
    monkeypatch.setenv("CROSSALIGN_EXPORTS", str(tmp_path / "roots"))
    (tmp_path / "s.es").write_text("la casa es grande .\nel perro come pan .\n")
    (tmp_path / "h.en").write_text("the house is big .\nthe dog eats bread .\n")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for encoder in ("mine/es-en", str(folder)):
        assert main(["score", "--encoder", encoder, "--src", "s.es", "--hyp", "h.en",
                     "--format", "json", "-q"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    np.testing.assert_array_equal(outputs[0]["segments"], outputs[1]["segments"])
    assert outputs[0]["signature"] == outputs[1]["signature"]
    assert main(["exports", "--pair", "es-en", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["exports"]
    mine = [e for e in listed if e["name"] == "mine/es-en"]
    assert mine and mine[0]["where"] == "CROSSALIGN_EXPORTS" and mine[0]["agreement"] is None
    assert main(["exports"]) == 0
    assert "mine/es-en" in capsys.readouterr().out


def test_a_mistyped_export_name_is_refused_with_the_close_matches(monkeypatch, tmp_path,
                                                                 capsys):
    from train.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CROSSALIGN_CACHE", str(tmp_path / "cache"))
    (tmp_path / "s").write_text("a\n")
    assert main(["score", "--encoder", "wmt17/de-em", "--src", "s", "--hyp", "s"]) == 2
    err = capsys.readouterr().err
    assert "unknown export 'wmt17/de-em' (known: " in err and "did you mean wmt17/de-en" in err
    # an export that left the repository says how to build it
    assert main(["score", "--encoder", "center-clp-realnvp", "--src", "s", "--hyp", "s"]) == 2
    assert "center-clp-realnvp left the repository: its successor is bible/es-en" in \
        capsys.readouterr().err
    assert main(["score", "--encoder", "wmt17/de-en-flow", "--src", "s", "--hyp", "s"]) == 2
    assert "--build wmt17/de-en --variant flow" in capsys.readouterr().err
    # a name like no export's is an encoder name: the catalogue's wording for encoders
    assert main(["score", "--encoder", "no-such-model", "--src", "s", "--hyp", "s"]) == 2
    assert "unknown encoder 'no-such-model'" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["wmt17", "mlqe"])
def test_evaluate_takes_a_group_by_name(where):
    from alignment.judgments.row_spec import parse_row

    row = parse_row(where, ["de-en", "et-en"])
    assert all(Path(p).is_dir() for p in row.by_pair.values()) and row.by_pair
