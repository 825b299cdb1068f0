"""``crossalign fit --config RECIPE.yaml [--config MORE.yaml] [--key value ...]``: a recipe run
through LightningCLI (any registered method; every key overridable)."""
from __future__ import annotations

import argparse
from pathlib import Path

from alignment.errors import InputError


def run(args: argparse.Namespace, extra: list[str]) -> None:
    from pytorch_lightning import LightningModule
    from pytorch_lightning.cli import LightningCLI

    import warnings

    from ..datamodule import PairedVectorDataModule
    from ..fitting import RECIPE_NOISE
    from ..run_log import RunLog, SaveConfigOnSuccess

    class RecipeCLI(LightningCLI):
        def before_fit(self) -> None:  # a RunLog without save_dir logs in the run folder
            for logger in self.trainer.loggers:
                if isinstance(logger, RunLog):
                    logger.bind(self.trainer.default_root_dir)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="LightningCLI's args parameter")  # args= is ours
        warnings.filterwarnings("ignore", message=RECIPE_NOISE)
        try:
            cli = RecipeCLI(LightningModule, _datamodule_for(extra) or PairedVectorDataModule,
                            subclass_mode_model=True,
                            save_config_callback=SaveConfigOnSuccess,
                            save_config_kwargs={"overwrite": True}, args=["fit", *extra],
                            parser_kwargs={"prog": "crossalign",
                                           "description": "Fit a mapping from a recipe (YAML)."})
        except (ValueError, TypeError) as err:
            raise _input_error_in(err) or err
    finish_wandb_runs(cli.trainer.loggers)


def _datamodule_for(extra: list[str]):
    """The data module a recipe's model names (``datamodule_class``; Joint-Align trains on
    raw text), or None for the default paired-vector data."""
    import importlib

    import yaml

    class_path = None
    for k, arg in enumerate(extra):
        if arg == "--config" and k + 1 < len(extra):
            path = Path(extra[k + 1])
            if not path.is_file():
                continue  # LightningCLI names the missing file
            try:
                model = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("model")
            except yaml.YAMLError:
                continue  # and reports the YAML error
            if isinstance(model, dict) and model.get("class_path"):
                class_path = model["class_path"]
        elif arg.startswith("--model=") or (arg == "--model" and k + 1 < len(extra)):
            value = arg.split("=", 1)[1] if "=" in arg else extra[k + 1]
            if "." in value and not value.endswith((".yaml", ".yml")):
                class_path = value
    if not class_path:
        return None
    module, _, name = class_path.rpartition(".")
    try:
        named = getattr(getattr(importlib.import_module(module), name), "datamodule_class", None)
    except (ImportError, AttributeError):
        return None  # LightningCLI reports the unknown class
    if not named:
        return None
    module, _, name = named.rpartition(".")
    return getattr(importlib.import_module(module), name)


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
    p = sub.add_parser("fit", help="fit a mapping from a recipe: crossalign fit --config RECIPE.yaml",
                       add_help=False)
    p.set_defaults(func=run, takes_extra=True)
