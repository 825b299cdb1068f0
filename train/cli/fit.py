"""``crossalign fit --config RECIPE.yaml [--config MORE.yaml] [--key value ...]``: a recipe run
through LightningCLI (any registered method; every key overridable)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from alignment.catalogue import Registry
from alignment.errors import InputError


VERBS = {"fit": "fit a mapping from a recipe: crossalign fit --config RECIPE.yaml"}

SHORT_HELP = """usage: crossalign fit --config RECIPE.yaml [--config MORE.yaml ...] [--KEY VALUE ...]

Fit a mapping from a recipe: a LightningCLI YAML file holding the whole experiment (trainer,
model: class_path + method, data: text files or vectors, encoder, layer, alignment; a data
class other than the paired word vectors is named by data: class_path + init_args). Ready
recipes are in recipes/ (one per method and setting); later --config files and --KEY VALUE
overrides win (--data.layer 4, --trainer.default_root_dir runs/x). The run folder gets the
mapping, metrics.json, run.json and the remapped-encoder export (RUN/export).

To fit without a recipe: crossalign train --method "center > clp" --src F --tgt F --out RUN

options:
  -h, --help     show this short help
  --help-all     show every recipe key LightningCLI accepts (long); a data class's keys:
                 --data.help train.data.paired.PairedVectorDataModule
  --verbose      show Lightning's own messages (model summary, accelerator lines, tips)
  --overwrite    replace the previous run in the run folder: only the files its marker lists
                 as written by it are removed (yours are kept); without it a used folder is
                 refused unless resuming with --ckpt_path RUN/checkpoints/last.ckpt
"""


def data_hint() -> str:
    """Which data class each kind of method reads (from the fit plan, not a hand list)."""
    from train.ground.contracts import class_path
    from train.fitting.plan import DATA_MODULES

    kinds = ", ".join(f"{kind.value}: {class_path(cls)}" for kind, cls in DATA_MODULES.items())
    return (f"; a model that trains on other data than word pairs names it under data: as "
            f"class_path, settings under init_args ({kinds}; crossalign methods NAME says "
            "which a method reads)")


# model arguments a module finds itself and stores in its checkpoint's hyper-parameters
DERIVED_HPARAMS = ("dim", "passive")


def run(args: argparse.Namespace, extra: list[str]) -> None:
    if "-h" in extra or "--help" in extra:
        print(SHORT_HELP, end="")
        return
    from alignment.shipped import with_shipped_recipes

    extra = with_shipped_recipes(["--help" if a == "--help-all" else a for a in extra])
    flags = {"--verbose", "--overwrite"}
    cli = run_recipe([a for a in extra if a not in flags], "--verbose" in extra,
                     "--overwrite" in extra)
    print_result(cli.trainer.default_root_dir)


# class paths recipes may name: today's, each under the former names of crossalign <= 0.3.0
MOVED_CLASSES: Registry[str] = Registry("class path")
for _old, _new in (
        ("train.modules.adversarial.GanRealNVPFit", "train.unsupervised.adversarial.GanRealNVPFit"),
        ("train.modules.adversarial.MuseFit", "train.unsupervised.adversarial.MuseFit"),
        ("train.modules.self_learning.SelfLearningFit",
         "train.unsupervised.self_learning.SelfLearningFit"),
        ("train.modules.mining.MiningFit", "train.unsupervised.mining.MiningFit"),
        ("train.callbacks.bootstrap.Bootstrap", "train.unsupervised.self_training.SelfTraining")):
    MOVED_CLASSES.add(_new, _new)
    MOVED_CLASSES.rename(_old, _new)


def accept_old_class_paths(argv: list[str]) -> None:
    """Let a recipe that names a class by its former path (``MOVED_CLASSES``' former names)
    still load: the old module names point at today's classes, with a note per name found."""
    import importlib
    import sys
    import types

    texts = list(argv)
    for i, arg in enumerate(argv[:-1]):
        if arg == "--config" and Path(argv[i + 1]).is_file():
            texts.append(Path(argv[i + 1]).read_text(errors="replace"))
    for old, new in MOVED_CLASSES.former_names().items():
        if any(old in text for text in texts):
            MOVED_CLASSES.canonical(old)  # the note: the old name still works
        old_module, _, old_name = old.rpartition(".")
        new_module, _, new_name = new.rpartition(".")
        alias = sys.modules.setdefault(old_module, types.ModuleType(old_module))
        if not hasattr(alias, old_name):
            setattr(alias, old_name, getattr(importlib.import_module(new_module), new_name))


def run_recipe(argv: list[str], verbose: bool = False, overwrite: bool = False,
               planned: dict | None = None):
    """Run ``argv`` (``--config`` files or YAML strings, ``--key value`` overrides) through
    LightningCLI's fit, in a run folder this run owns (``train.runs.run_folder``); framework
    messages only when ``verbose``. ``planned``: a recipe written down from a fit plan (its
    model holding the parsed method), under ``argv``. Returns the CLI."""
    import logging
    import warnings

    import yaml
    from pytorch_lightning import LightningDataModule, LightningModule

    from train.ground.contracts import ChecksData
    from train.ground.distributed import end_process_group
    from train.fitting.plan import check_fit
    from train.runs.run_folder import claim
    from train.runs.run_log import RunLog, SaveConfigOnSuccess
    from train.ground.trainer import RECIPE_NOISE

    claims: list = []

    class RecipeCLI(recipe_cli_class(planned)):
        def before_fit(self) -> None:
            bars_to_stderr(self.trainer)
            check_fit(self.model, self.datamodule)
            for callback in self.trainer.callbacks:  # checks a callback makes of the data
                if isinstance(callback, ChecksData):
                    callback.check_data(self.datamodule)
            if _is_first_process():  # take the run folder before anything is written to it
                config = yaml.safe_load(self.parser.dump(self.config, skip_none=False))["fit"]
                resume = config.get("ckpt_path") is not None
                # what the run learns from and with; the trainer (epoch budget, devices,
                # callbacks) may change when a run is resumed, as Lightning allows
                what = {k: config.get(k) for k in ("model", "data", "seed_everything")}
                # found from the data on a first run, read from the checkpoint on a resume:
                # not settings
                init = (what.get("model") or {}).get("init_args") or {}
                for derived in DERIVED_HPARAMS:
                    init.pop(derived, None)
                claims.append(claim(self.trainer.default_root_dir, what, resume, overwrite))
            for logger in self.trainer.loggers:  # a RunLog without save_dir logs in the run
                if isinstance(logger, RunLog):
                    logger.bind(self.trainer.default_root_dir)

    accept_old_class_paths(argv)
    if not verbose:  # the model summary is framework noise; a recipe or flag may still ask
        argv = ["--trainer.enable_model_summary", "false", *argv]
    level = logging.INFO if verbose else logging.WARNING
    for name in ("pytorch_lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(name).setLevel(level)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="LightningCLI's args parameter")  # args= is ours
        warnings.filterwarnings("ignore", message=RECIPE_NOISE)
        try:
            cli = RecipeCLI(LightningModule, LightningDataModule, subclass_mode_model=True,
                            subclass_mode_data=True, save_config_callback=SaveConfigOnSuccess,
                            save_config_kwargs={"overwrite": True}, args=["fit", *argv],
                            parser_kwargs={"prog": "crossalign fit", "exit_on_error": False,
                                           "description": "Fit a mapping from a recipe (YAML)."})
        except argparse.ArgumentError as err:  # one line, not the recipe parser's usage
            first = _recipe_error_line(str(err))
            hint = data_hint() if "data" in first else ""
            raise InputError(f"recipe: {first} (crossalign fit --help-all lists every key){hint}",
                             parameter="config") from None
        except (ValueError, TypeError) as err:
            raise _input_error_in(err) or err
        finally:
            for taken in claims:
                taken.release()
            end_process_group()
    finish_wandb_runs(cli.trainer.loggers)
    return cli


def bars_to_stderr(trainer) -> None:
    """Lightning's rich progress bar draws on standard output, where a run's result line and
    a script's pipe go: point its console at standard error (tqdm bars already use it)."""
    bar = trainer.progress_bar_callback
    if type(bar).__name__ == "RichProgressBar" and hasattr(bar, "_console_kwargs"):
        bar._console_kwargs = {**(bar._console_kwargs or {}), "stderr": True}


def recipe_cli_class(planned: dict | None = None) -> type:
    """LightningCLI for recipes: model and data both in subclass mode (each names its
    class_path); a ``data:`` without one is the paired word vectors. ``planned`` (a recipe as
    a dict) goes under every ``--config`` and flag; a parsed method in it is written as its
    name wherever the recipe is saved."""
    from jsonargparse.typing import register_type
    from pytorch_lightning.cli import LightningCLI

    from alignment.mappings import DataKind, MethodSpec, parse_method
    from train.ground.contracts import class_path
    from train.fitting.plan import DATA_MODULES, method_text

    register_type(MethodSpec, serializer=method_text, deserializer=parse_method)

    class RecipeParser(LightningCLI):
        def add_arguments_to_parser(self, parser) -> None:
            parser.set_defaults({"data": {"class_path": class_path(DATA_MODULES[DataKind.PAIRED])}})
            if planned:
                parser.set_defaults(planned)

    return RecipeParser


def parse_recipe(argv: list[str]):
    """The recipe as ``fit`` reads it, models and data instantiated, nothing run (for checks
    and tests)."""
    import warnings

    from pytorch_lightning import LightningDataModule, LightningModule

    accept_old_class_paths(argv)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="LightningCLI's args parameter")
        return recipe_cli_class()(LightningModule, LightningDataModule, subclass_mode_model=True,
                                  subclass_mode_data=True, run=False, args=argv,
                                  save_config_kwargs={"overwrite": True})


def _is_first_process() -> bool:
    """Rank 0 of a launched multi-process run, or a plain process."""
    import os

    return int(os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0")) or 0) == 0


def print_result(run_dir: str | Path) -> None:
    """One summary line: where the mapping and the export are, and how to score with it."""
    run_dir = Path(run_dir)
    parts = [f"mapping in {run_dir / 'mapping'}"] if (run_dir / "mapping").is_dir() else []
    export = run_dir / "export"
    if (export / "remap.json").is_file():
        parts.append(f"export in {export} (score with: crossalign score --encoder {export} "
                     "--src SRC --hyp HYP)")
    if parts:
        print("crossalign: " + "; ".join(parts))


def _recipe_error_line(text: str) -> str:
    """One line from the recipe parser's error: the key and, for a class in subclass mode, the
    innermost reason (``Option 'nosuch' is not accepted``) rather than the Union preamble."""
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    first = lines[0] if lines else text
    if first.startswith("Unexpected config"):
        return f"a recipe is a YAML mapping (trainer:, model:, data:), not this: {first}"
    key = re.match(r'Parser key "([^"]+)":', first)
    if not key:
        return first
    reasons = [l for l in lines[1:] if l.startswith(("Option", "Key", "Expected a <class 'dict'>"))
               or "not accepted" in l or "does not exist" in l or "Unable to" in l]
    problem = next((l for l in lines if l.startswith("- Problem with given class_path")), "")
    where = re.search(r"'([^']+)'", problem)
    detail = reasons[0] if reasons else " ".join(lines[1:3])
    return f"{key.group(1)}: {detail}" + (f" (class {where.group(1)})" if where else "")


def _input_error_in(err: BaseException) -> InputError | None:
    """The InputError a recipe's class raised, when jsonargparse wrapped it while
    instantiating (so the user sees that one line, not the wrapper's traceback)."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, InputError):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None


def finish_wandb_runs(loggers: list) -> None:
    """Close wandb runs so their (offline) logs are complete when ``fit`` returns, not at exit:
    ``finish()`` ends each run, and ``wandb.teardown()`` returns only once wandb's writer process
    has flushed and closed every run file (``finish()`` alone does not wait for that)."""
    finished = False
    for logger in loggers:
        if type(logger).__name__ == "WandbLogger" and getattr(logger, "_experiment", None) is not None:
            logger.experiment.finish()
            finished = True
    if finished:
        import wandb

        wandb.teardown()


def register(sub) -> None:
    p = sub.add_parser("fit", help=VERBS["fit"],
                       add_help=False)
    p.add_argument("-q", "--quiet", action="store_true",  # the recipe's own flags pass on
                   help="no notes, warnings or progress bars")
    p.set_defaults(func=run, takes_extra=True)
