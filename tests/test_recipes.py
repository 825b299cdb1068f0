"""Every shipped recipe parses with the recipe parser, names a registered method of its module's
family, and each ready-to-run Bible recipe equals the composition of the pieces in
recipes/{data,trainer,method}/ (so the ready-to-run copies cannot drift)."""
from pathlib import Path

import pytest
import yaml

from alignment.mappings import parse_method

ROOT = Path(__file__).resolve().parents[1] / "recipes"
RECIPES = sorted(p for p in ROOT.rglob("*.yaml")
                 if p.parent.name in ("bible-es-en", "bible-es-en-unpaired", "vectors"))
PIECES = sorted((ROOT / "method").glob("*.yaml"))


def _cli(*configs: Path, extra: tuple[str, ...] = ()):
    from train.cli.fit import parse_recipe

    return parse_recipe([a for c in configs for a in ("--config", str(c))] + list(extra))


def test_the_recipe_folders_hold_what_the_readme_promises():
    assert {p.stem for p in PIECES} >= {"identity", "center", "norm", "clp", "umd", "linear",
                                        "realnvp", "fcnn"}
    assert {p.stem for p in RECIPES if p.parent.name == "bible-es-en"} >= {
        "clp", "umd", "umd-clp", "clp-umd", "center-clp", "norm", "realnvp", "fcnn"}


@pytest.mark.parametrize("path", RECIPES + PIECES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recipe_names_a_registered_method_of_its_module(path):
    from train.fitting.fitters import fitter_class
    from train.ground.contracts import class_path

    recipe = yaml.safe_load(path.read_text())
    spec = parse_method(recipe["model"]["init_args"]["method"])
    assert recipe["model"]["class_path"] == class_path(fitter_class(spec))


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_ready_to_run_recipe_builds(path):
    cli = _cli(path)
    recipe = yaml.safe_load(path.read_text())
    assert cli.model.hparams.method == parse_method(recipe["model"]["init_args"]["method"]).name
    assert any(type(c).__name__ == "SaveMapping" for c in cli.trainer.callbacks)


@pytest.mark.parametrize("path", [p for p in RECIPES if p.parent.name == "bible-es-en"],
                         ids=lambda p: p.name)
def test_ready_to_run_bible_recipe_equals_its_composition(path):
    recipe = yaml.safe_load(path.read_text())
    spec = parse_method(recipe["model"]["init_args"]["method"])
    family = "trained" if spec.trained else "closed-form"
    method = ROOT / "method" / f"{spec.methods[-1].name}.yaml"
    extra = ["--model.init_args.method", spec.name,
             "--trainer.default_root_dir", recipe["trainer"]["default_root_dir"]]
    for key, value in recipe["model"]["init_args"].items():
        extra += [f"--model.init_args.{key}", str(value)]
    for key in ("max_epochs",):
        extra += [f"--trainer.{key}", str(recipe["trainer"][key])]
    composed = _cli(ROOT / "data" / "bible-es-en.yaml", ROOT / "trainer" / f"{family}.yaml",
                    method, extra=tuple(extra))
    ready = _cli(path)

    def settings(cli):
        cfg = cli.config.fit if "fit" in cli.config else cli.config
        data = cfg.data.as_dict()
        trainer = {k: v for k, v in cfg.trainer.as_dict().items() if k not in ("logger",)}
        callbacks = [c["class_path"] for c in trainer.pop("callbacks") or []]
        return data, trainer, callbacks, dict(cli.model.hparams)

    assert settings(composed) == settings(ready)


@pytest.mark.parametrize("path", [p for p in RECIPES if p.parent.name == "bible-es-en-unpaired"],
                         ids=lambda p: p.name)
def test_unpaired_recipe_uses_the_unpaired_data_piece(path):
    """Every unsupervised recipe reads one of the monolingual data pieces (recipes/data):
    disjoint halves, or for mining comparable files read whole."""
    ready = yaml.safe_load(path.read_text())["data"]
    name, sampling = ("comparable", "all") if path.name == "mining.yaml" else ("unpaired", "disjoint")
    piece = yaml.safe_load((ROOT / "data" / f"bible-es-en-{name}.yaml").read_text())["data"]
    assert ready == piece and ready["init_args"]["sampling"] == sampling
    from train.ground.contracts import class_path
    from train.fitting.plan import plan_fit

    plan = plan_fit(yaml.safe_load(path.read_text())["model"]["init_args"]["method"])
    assert ready["class_path"] == class_path(plan.datamodule_class)


ENCODER_RECIPES = sorted((ROOT / "bible-es-en-encoder").glob("*.yaml"))


def _fit_cli(path: Path):
    """The recipe as ``crossalign fit`` builds it (the data module the recipe names)."""
    return _cli(path)


@pytest.mark.parametrize("path", ENCODER_RECIPES, ids=lambda p: p.name)
def test_encoder_recipe_parses_with_the_raw_text_data(path):
    cli = _fit_cli(path) if "multigpu" not in path.name else None
    recipe = yaml.safe_load(path.read_text())
    assert recipe["model"]["class_path"] == "train.modules.JointAlign"
    assert [c["class_path"].rsplit(".", 1)[1] for c in recipe["trainer"]["callbacks"]] == \
        ["KeepBest", "LastCheckpoint", "SaveEncoder"]
    if cli is not None:
        assert type(cli.datamodule).__name__ == "ParallelTextDataModule"
        assert cli.datamodule.hparams.pivot == "en" and cli.model.hparams.lr == 1e-4


def test_multigpu_recipe_differs_from_the_single_device_one_only_in_scale():
    one, many = (yaml.safe_load((ROOT / "bible-es-en-encoder" / f"{n}.yaml").read_text())
                 for n in ("joint-align", "joint-align-multigpu"))
    assert one["trainer"]["callbacks"] == many["trainer"]["callbacks"]
    assert one["data"]["init_args"]["corpora"] == many["data"]["init_args"]["corpora"]
    differ = {k for k in one["model"]["init_args"]
              if one["model"]["init_args"][k] != many["model"]["init_args"][k]}
    assert differ == {"gradient_checkpointing"}
    assert many["trainer"]["strategy"] == "ddp" and many["trainer"]["precision"] == "bf16-mixed"


def test_the_wmt17_encoder_recipe_trains_on_what_data_wmt17_writes():
    from alignment.judgments import wmt17

    cli = _cli(ROOT / "wmt17-encoder" / "joint-align.yaml")
    assert type(cli.datamodule).__name__ == "ParallelTextDataModule"
    corpora = cli.datamodule.hparams.corpora
    assert [c["src_lang"] for c in corpora] == [p.split("-")[0] for p in wmt17.PAIRS]
    for c in corpora:  # the training text crossalign data wmt17 writes, never a judged file
        pair = f"{c['src_lang']}-en"
        assert (c["src"], c["tgt"]) == (f"data/wmt17/{pair}/train.{c['src_lang']}",
                                        f"data/wmt17/{pair}/train.en")
    assert cli.datamodule.hparams.layer == 8 and cli.model.hparams.lr == 5e-5
