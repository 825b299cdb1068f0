"""``data wmt17`` and ``data mlqe`` on excerpts of the public repositories (tests/fixtures, with
their attribution): what they build, that no training line is a judged sentence, and that bad
input ends in one error naming the file and line with nothing written."""
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from alignment.errors import InputError
from alignment.judgments import get_benchmark, mlqe, wmt17
from alignment.judgments.sources import normalised

FIXTURES = Path(__file__).parents[2] / "fixtures"
WMT17 = FIXTURES / "wmt17-clone"
MLQE = FIXTURES / "mlqe-clone"


@pytest.fixture
def wmt17_clone(tmp_path):
    return Path(shutil.copytree(WMT17, tmp_path / "acl20"))


@pytest.fixture
def mlqe_clone(tmp_path):
    return Path(shutil.copytree(MLQE, tmp_path / "mlqe-pe"))


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_wmt17_builds_judgments_training_text_and_systems(tmp_path):
    report = wmt17.prepare(WMT17, tmp_path / "wmt17", ["de-en", "lv-en"])
    out = tmp_path / "wmt17"
    data = get_benchmark("wmt17").load(out, "test", None)
    assert data.pairs == ["de-en", "lv-en"] and len(data) == 10
    assert data.ref is not None and set(data.baselines) == {"sentbleu"}
    assert all(s for s in data.system)  # every judged segment found its system in DA-seglevel
    de = report["pairs"]["de-en"]
    assert de["training_from"] == ["newstest2018-deen-src.de", "newstest2018-ende-src.en",
                                   "newstest2019-deen-src.de", "newstest2019-ende-src.en"]
    assert len(_lines(out / "de-en" / "train.de")) == len(_lines(out / "de-en" / "train.en")) \
        == de["training_pairs"] > 0
    # lv has no later test set: the newstest2017 lines that are not judged (12 − 5)
    assert report["pairs"]["lv-en"]["training_pairs"] == 7
    systems = get_benchmark("wmt17").systems(out, "de-en")
    assert len(systems.outputs) == 3 and all(len(h) == len(systems.source) == 12
                                            for h in systems.outputs.values())
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["licence"].startswith("code Apache-2.0") and "WMT17/DA-seglevel.csv" in prov["inputs_sha256"]
    assert set(prov["outputs_sha256"]) >= {"de-en/test.tsv", "de-en/train.de", "lv-en/train.lv"}


def test_no_training_line_is_a_judged_sentence(tmp_path, wmt17_clone, mlqe_clone):
    # plant judged sentences inside the later test sets: they must be dropped
    test = [line.split("\t") for line in _lines(wmt17_clone / "WMT17/testset/testset_de-en.tsv")[1:]]
    for name, side in (("source/newstest2018-deen-src.de", 1), ("references/newstest2018-deen-ref.en", 3)):
        path = wmt17_clone / "WMT18" / name
        path.write_text(path.read_text() + test[0][side].upper() + "\n", encoding="utf-8")
    for path in (wmt17_clone / "WMT18/source/newstest2018-deen-src.de",
                 wmt17_clone / "WMT18/references/newstest2018-deen-ref.en"):
        assert len(_lines(path)) == 9
    wmt17.prepare(wmt17_clone, tmp_path / "w", ["de-en", "lv-en"])
    mlqe.prepare(mlqe_clone, tmp_path / "m", ["ro-en"])
    for folder, bench, src_lang, splits in ((tmp_path / "w", "wmt17", None, ("test",)),
                                            (tmp_path / "m", "mlqe", "ro", ("dev", "test"))):
        for pair in [p.name for p in folder.iterdir() if p.is_dir()]:
            lang = pair.split("-")[0]
            judged = set()
            for split in splits:
                data = get_benchmark(bench).load(folder, split, [pair])
                judged |= {normalised(s) for s in data.src}
                judged |= {normalised(s) for s in data.ref or []}
            train = _lines(folder / pair / f"train.{lang}") + _lines(folder / pair / "train.en")
            assert train and not judged & {normalised(s) for s in train}


def test_mlqe_builds_dev_test_and_post_edited_training_text(tmp_path):
    report = mlqe.prepare(MLQE, tmp_path / "mlqe", ["ro-en"])
    dev = get_benchmark("mlqe").load(tmp_path / "mlqe", "dev", None)
    test = get_benchmark("mlqe").load(tmp_path / "mlqe", "test", ["ro-en"])
    assert len(dev) == len(test) == 6 and dev.ref is None and "model_score" in test.baselines
    assert report["pairs"]["ro-en"]["training_pairs"] == 10
    assert json.loads((tmp_path / "mlqe" / "provenance.json").read_text())["licence"].startswith("CC0")


def _tgz(path: Path, members: dict[str, bytes], link: str | None = None) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo(link)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            archive.addfile(info)


@pytest.mark.parametrize("member, link", [("../../evil.tsv", None), ("/abs/dev.roen.df.short.tsv", None),
                                          ("ro-en/ok.tsv", "ro-en/dev.roen.df.short.tsv")])
def test_a_tarball_naming_paths_outside_is_refused(tmp_path, mlqe_clone, member, link):
    archive = mlqe_clone / "data/direct-assessments/dev/ro-en-dev.tar.gz"
    _tgz(archive, {member: b"index\toriginal\n"}, link)
    with pytest.raises(InputError, match=r"ro-en-dev.tar.gz: member '.*' (names a path outside|is a link)"):
        mlqe.prepare(mlqe_clone, tmp_path / "out", ["ro-en"])
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil.tsv").exists()


def _corrupt(path: Path, line: int, transform) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[line - 1] = transform(lines[line - 1])
    path.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.parametrize("transform, message", [
    (lambda l: "\t".join(l.split("\t")[:4]), r"testset_de-en.tsv:3: 4 fields, the header has 6"),
    (lambda l: "\t".join(l.split("\t")[:4] + ["good", "0.1"]), r"testset_de-en.tsv:3: HUMAN_score 'good' is not a number"),
    (lambda l: "\t".join(l.split("\t")[:4] + ["nan", "0.1"]), r"testset_de-en.tsv:3: HUMAN_score 'nan' is not a finite number"),
    (lambda l: "\t".join(l.split("\t")[:5] + ["inf"]), r"testset_de-en.tsv:3: \w+ 'inf' is not a finite number"),
])
def test_a_malformed_judgments_file_names_its_line(tmp_path, wmt17_clone, transform, message):
    _corrupt(wmt17_clone / "WMT17/testset/testset_de-en.tsv", 3, transform)
    with pytest.raises(InputError, match=message):
        wmt17.prepare(wmt17_clone, tmp_path / "out", ["de-en"])
    assert not (tmp_path / "out").exists()


def test_a_malformed_mlqe_row_names_archive_member_and_line(tmp_path, mlqe_clone):
    archive = mlqe_clone / "data/direct-assessments/test/ro-en-test.tar.gz"
    rows = tarfile.open(archive).extractfile("ro-en/test.roen.df.short.tsv").read().decode().split("\n")
    good = list(rows)
    rows[2] = "\t".join(rows[2].split("\t")[:6] + ["high", "-0.2"])
    _tgz(archive, {"ro-en/test.roen.df.short.tsv": "\n".join(rows).encode()})
    with pytest.raises(InputError, match=r"ro-en-test.tar.gz!ro-en/test.roen.df.short.tsv:3: z_mean "
                                         r"'high' is not a number"):
        mlqe.prepare(mlqe_clone, tmp_path / "out", ["ro-en"])
    assert not (tmp_path / "out").exists()
    good[3] = "\t".join(good[3].split("\t")[:6] + ["0.1", "nan"])  # a score evaluate would refuse
    _tgz(archive, {"ro-en/test.roen.df.short.tsv": "\n".join(good).encode()})
    with pytest.raises(InputError, match=r"test.roen.df.short.tsv:4: model_scores 'nan' is not a "
                                         r"finite number"):
        mlqe.prepare(mlqe_clone, tmp_path / "out", ["ro-en"])
    assert not (tmp_path / "out").exists()


def test_wrong_folder_and_unknown_pair_are_refused_before_any_work(tmp_path):
    with pytest.raises(InputError, match=r"is not a clone of AIPHES/ACL20-Reference-Free-MT-Evaluation"):
        wmt17.prepare(MLQE, tmp_path / "out")
    with pytest.raises(InputError, match=r"is not a clone of sheffieldnlp/mlqe-pe"):
        mlqe.prepare(WMT17, tmp_path / "out")
    with pytest.raises(InputError, match=r"parameter 'pairs': WMT17 here has no pair 'es-en'"):
        wmt17.prepare(WMT17, tmp_path / "out", ["es-en"])
    with pytest.raises(InputError, match=r"the clone lacks pair cs-en"):
        wmt17.prepare(WMT17, tmp_path / "out", ["cs-en"])
    with pytest.raises(InputError, match=r"give --from CLONE"):
        wmt17.prepare(None, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_output_folder_holding_user_files_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=r"crossalign never deletes files it did not write"):
        wmt17.prepare(WMT17, tmp_path / "out", ["de-en"])
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"
    wmt17.prepare(WMT17, tmp_path / "again", ["de-en"])
    wmt17.prepare(WMT17, tmp_path / "again", ["lv-en"])  # its own previous output is replaced
    assert not (tmp_path / "again" / "de-en").exists() and (tmp_path / "again" / "lv-en").is_dir()


def test_loading_a_pair_the_data_lacks_is_one_line(tmp_path):
    wmt17.prepare(WMT17, tmp_path / "w", ["de-en"])
    with pytest.raises(InputError, match=r"lv-en/test.tsv is missing"):
        get_benchmark("wmt17").load(tmp_path / "w", "test", ["lv-en"])
    with pytest.raises(InputError, match=r"wmt17 has no pair 'xx-en'"):
        get_benchmark("wmt17").load(tmp_path / "w", "test", ["xx-en"])


def test_quoted_test_set_fields_are_read_as_the_public_code_reads_them(tmp_path, wmt17_clone):
    # the released test sets quote a field holding '"' CSV-style; pandas (the public code)
    # unquotes it, and so must the builder, or the metric scores stray quotation marks
    path = wmt17_clone / "WMT17/testset/testset_de-en.tsv"
    lines = path.read_text(encoding="utf-8").split("\n")
    cells = lines[2].split("\t")
    cells[1] = '"' + cells[1].replace("Aber", 'Aber ""so""') + '"'
    lines[2] = "\t".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    wmt17.prepare(wmt17_clone, tmp_path / "w", ["de-en"])
    data = get_benchmark("wmt17").load(tmp_path / "w", "test", ["de-en"])
    assert data.src[1] == 'Aber "so" was hat ein Duldungsstatus mit Terror zu tun?'
