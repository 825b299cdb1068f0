"""``crossalign export --build``: an export made from its recipe by the product's own verbs —
``data`` and ``train`` replayed in a scratch folder, compared with the shipped export field by
field, and with ``--card`` measured by ``evaluate`` on its benchmark's test split and given its
card. ``--variant`` builds what a recipe offers on demand (a flow) into the cache."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from alignment.errors import InputError

from .export_setting import THIS, UNMAPPED, config_of_options, use_section


def test_split(benchmark: str) -> tuple[str, tuple[str, ...]]:
    """(the split ``benchmark`` reports on — the last of its registered splits, evaluate's
    default — and evaluate's options that score its sentences there, as a card shows them:
    ``--split`` where that split is not called test, ``--sentences`` where word labels are
    the benchmark's default)."""
    from alignment.judgments import get_benchmark

    bench = get_benchmark(benchmark)
    split = bench.splits[-1]
    return split, ((("--split", split) if split != "test" else ())
                   + (("--sentences",) if bench.words_first else ()))


def _target(args: argparse.Namespace, given_name: str | None = None):
    """(the recipe, the export it is compared with or None, the name) ``--build`` (or
    ``given_name``) names."""
    from alignment.export.named import resolve_export
    from alignment.export.recipe import RECIPE_FILE, Recipe
    from alignment.export.remapped import REMAP_FILE

    asked = given_name or args.build
    given = Path(asked)
    if given.is_file() and given.name == RECIPE_FILE:  # a recipe: named BENCHMARK/PAIR
        recipe = Recipe.read(given.parent.absolute())
        name = f"{recipe.benchmark}/{recipe.pair}"
        if getattr(args, "variant", None):
            return recipe.variant(args.variant), None, f"{name}-{args.variant}"
        return recipe, None, name
    export = Path(resolve_export(asked)).absolute()
    if not (export / REMAP_FILE).is_file():
        raise InputError(f"'{asked}' is no export here or by name (crossalign exports "
                         "lists them), nor a recipe.json", parameter="build")
    recipe = Recipe.read(export)
    from alignment.xmover.configuration import ScoringConfig

    config = ScoringConfig.load(export)
    if config is not None and not recipe.score:  # the export keeps its scoring setting
        recipe = replace(recipe, score=tuple(config.options()))
    name = f"{recipe.benchmark}/{recipe.pair}" if Path(asked).expanduser().exists() \
        else asked  # a folder is named by its recipe, as a recipe file is
    if args.variant:
        return recipe.variant(args.variant), None, f"{name}-{args.variant}"
    return recipe, export, name


def _check_clone(recipe, clone: str | None, verb: str) -> None:
    if clone is None or not Path(clone).is_dir():
        raise InputError(f"{verb} needs --from CLONE, a folder holding a clone of the "
                         f"{recipe.benchmark} repository (got {clone})", parameter="from")


@contextlib.contextmanager
def _inside(folder: Path):
    """Run a recipe's steps with ``folder`` (the build's own) as the working directory, so
    that any relative name a recipe gives resolves inside the build, never beside the user's
    files; the directory is restored after."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def _run_step(step: list[str], name: str, parameter: str, scratch: Path) -> None:
    """One command of a recipe (``crossalign …``), run inside the build folder ``scratch`` and
    shown as it runs; a failure names it."""
    from . import main

    print("$ " + " ".join(step), flush=True)
    with _inside(scratch):
        code = main(step[1:])
    if code != 0:
        raise InputError(f"the recipe of {name} failed at `{' '.join(step[:3])}` (its error "
                         "is above)", parameter=parameter)


def default_out(name: str) -> Path:
    """Where a variant goes without ``--out``: the cache's exports, found by name."""
    from alignment.data.cache import default_cache_dir

    return default_cache_dir() / "exports" / name


def build(args: argparse.Namespace) -> None:
    """Replay the recipe (its data command on ``--from CLONE``, then its ``train`` command) in
    a scratch folder, write what it made to ``--out`` with its recipe and a ``build.json``
    report, compare it with the shipped export, and with ``--card`` measure and describe it."""
    from alignment.atomic import atomic_dir, check_output_dir, write_text
    from alignment.export.recipe import compare
    from alignment.export.remapped import REMAP_FILE

    if args.run is not None or args.export is not None or args.upgrade is not None:
        raise InputError("--build takes no --run, --export or --upgrade", parameter="build")
    recipe, shipped_at, name = _target(args)
    if recipe.needs_clone:
        _check_clone(recipe, args.clone, "--build")
        args.clone = str(Path(args.clone).resolve())  # the steps run inside the build folder
    if args.out is None and not args.variant:
        raise InputError("give --out (a variant goes to the cache by default)", parameter="out")
    out = (Path(args.out) if args.out else default_out(name)).absolute()
    inputs = tuple(p for p in (shipped_at, args.clone) if p is not None)
    check_output_dir(out, REMAP_FILE, args.overwrite, inputs=inputs)
    shipped = None if shipped_at is None else \
        json.loads((shipped_at / REMAP_FILE).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="crossalign-build-") as scratch:
        data, run_dir = Path(scratch) / "data", Path(scratch) / "run"
        for step in (recipe.data_command(str(args.clone), str(data)),
                     recipe.text_command(str(data)), recipe.train_command(data, str(run_dir))):
            if step is not None:
                _run_step(step, name, "build", Path(scratch))
        built = run_dir / "export"
        if not (built / REMAP_FILE).is_file():  # the recipe's run wrote elsewhere or nothing
            raise InputError(f"the recipe of {name} made no export in its build folder",
                             parameter="build")
        meta = json.loads((built / REMAP_FILE).read_text(encoding="utf-8"))
        rows = [] if shipped is None else compare(shipped, meta)
        card, config = measured_card(recipe, name, data, built, Path(scratch), args) \
            if args.card else (None, config_of_options(recipe.score, built))
        with atomic_dir(out, REMAP_FILE, args.overwrite, inputs=inputs) as tmp:
            for item in built.iterdir():
                if not item.name.startswith("."):
                    (shutil.copytree if item.is_dir() else shutil.copy2)(item, tmp / item.name)
            replace(recipe, score=()).write(tmp)  # its scoring setting: scoring.json
            config.write(tmp)
            if card is not None:
                write_text(tmp / "README.md", card.replace(str(built), name))
            write_text(tmp / "build.json", json.dumps({
                "export": name, "recipe": recipe.as_dict(),
                "reproduced": all(r[3] for r in rows) if rows else None,
                "fields": [{"field": f, "shipped": a, "rebuilt": b, "equal": e}
                           for f, a, b, e in rows]}, indent=2, ensure_ascii=False) + "\n")
    for field, a, b, equal in rows:
        print(f"{'same' if equal else 'DIFFERS':8} {field}: {b}" + ("" if equal else f" (shipped: {a})"))
    differ = [r[0] for r in rows if not r[3]]
    if differ:
        raise InputError(f"the rebuilt export in {out} is not {shipped_at}: {', '.join(differ)} "
                         "differ (build.json lists both)", parameter="build")
    if rows:
        print(f"reproduced {args.build} in {out}: every fingerprint is the shipped one")
    else:
        print(f"built {name} from its recipe in {out}" + (
            f" (use it by name: --encoder {name})" if args.out is None else ""))


def measure(args: argparse.Namespace) -> None:
    """Measure an export as it is (its recipe's data from ``--from CLONE``, its recipe's
    scoring options) and write its card in place: a changed scoring setting gets its card
    without a retrain."""
    from alignment.atomic import write_text

    recipe, export, name = _target(args, args.measure)
    if export is None or args.variant or args.build or args.out:
        raise InputError("--measure takes an export (a name or folder), no --build, --variant "
                         "or --out: it rewrites that export's card", parameter="measure")
    if not recipe.needs_clone:
        raise InputError(f"{name}'s benchmark has no human judgments to measure it on",
                         parameter="measure")
    _check_clone(recipe, args.clone, "--measure")
    args.clone = str(Path(args.clone).resolve())
    with tempfile.TemporaryDirectory(prefix="crossalign-measure-") as scratch:
        data = Path(scratch) / "data"
        _run_step(recipe.data_command(str(args.clone), str(data)), name, "measure",
                  Path(scratch))
        card, config = measured_card(recipe, name, data, export, Path(scratch), args)
    config.write(export)
    replace(recipe, score=()).write(export)  # its scoring setting: scoring.json alone
    write_text(export / "README.md", card.replace(str(export), name))
    print(f"measured {name}: its card is {export / 'README.md'}")


def _evaluate(recipe, data: Path, rows: list[str], labels: list[str], scratch: Path) -> dict:
    """``crossalign evaluate BENCHMARK`` of ``rows`` on the pair's test split, as JSON."""
    from . import main

    argv = ["evaluate", recipe.benchmark, "--data", str(data / recipe.benchmark), "--pairs",
            recipe.pair, *test_split(recipe.benchmark)[1], "--encoder", *rows, "--labels",
            *labels, "--setting", "none", *recipe.score, "--format",
            "json", "-q", "--out", str(scratch / "measured")]
    if "--precision" not in recipe.score:  # a card reads the same on every machine: fp32
        argv += ["--precision", "fp32"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), _inside(scratch):
        code = main(argv)
    if code != 0:
        raise InputError(f"measuring the built export failed (`crossalign {' '.join(argv[:2])}`;"
                         " its error is above)", parameter="card")
    return json.loads(printed.getvalue())


def measured_card(recipe, name: str, data: Path, built: Path, scratch: Path,
                  args: argparse.Namespace):
    """(the card, the scoring configuration) of a built export: its agreement with people on
    the benchmark's test split (beside the unmapped encoder and, for a variant, the export it
    varies), how to use it and how to rebuild it. A recipe without human judgments gets no
    agreement table and a configuration without a headline."""
    from alignment.export.card import Headline, card_text, fmt_delta, fmt_r, markdown_table
    from alignment.export.recipe import rebuild_section

    meta = json.loads((built / "remap.json").read_text(encoding="utf-8"))
    score = shlex.join(recipe.score)
    sections = []
    headline = None
    if recipe.needs_clone:
        split, selects = test_split(recipe.benchmark)
        rows, labels = [meta["encoder"], str(built)], [UNMAPPED, THIS]
        if args.variant:
            rows.insert(1, args.build)
            labels.insert(1, f"{args.build} (shipped)")
        found = _evaluate(recipe, data, rows, labels, scratch)
        metrics, shown = found["metrics"], [r["label"] for r in found["rows"]]
        own = [r for r in shown if r.startswith(THIS)][-1]
        p = f"{own}/avg"
        signed = next(r["signature"] for r in found["rows"] if r["label"] == own)
        headline = Headline(own.replace(THIS, name),  # to the card's digits: what it prints
                            *(round(metrics[f"{p}/{k}"], 3) for k in ("pearson", "pearson_lo", "pearson_hi")),
                            f"{recipe.benchmark} {split}", signed)
        first = shown[0]
        table = markdown_table(
            ["row", "Pearson [95% CI]", f"Δ vs {first} [95% CI]"],
            [[r, f"{fmt_r(metrics[f'{r}/avg/pearson'])} [{fmt_r(metrics[f'{r}/avg/pearson_lo'])}"
              f", {fmt_r(metrics[f'{r}/avg/pearson_hi'])}]",
              "" if r == first or f"{r}/avg/diff" not in metrics else
              f"{fmt_delta(metrics[f'{r}/avg/diff'])} [{fmt_delta(metrics[f'{r}/avg/diff_lo'])}, "
              f"{fmt_delta(metrics[f'{r}/avg/diff_hi'])}]"] for r in shown])
        segments = int(metrics[f"{first}/{recipe.pair}/segments"])
        command = (f"crossalign data {recipe.benchmark} --from CLONE --pairs {recipe.pair} && "
                   f"crossalign evaluate {recipe.benchmark} --pairs {recipe.pair} "
                   + "".join(f"{x} " for x in selects) + "--encoder "
                   f"{' '.join(rows[:-1])} {name} --labels "
                   + " ".join(f"'{x}'" if " " in x else x for x in labels) + f" {score}")
        sections.append(("Agreement with people", [
            f"Segment-level Pearson with the human scores of {recipe.benchmark} {split} "
            f"({segments} segments of {recipe.pair}; 95% bootstrap intervals over segments; "
            f"Δ: paired bootstrap against the first row). No row reads the reference but the "
            "data's own baselines. Measured by `crossalign export --build … --card` (or "
            "`--measure`), which runs:",
            "", "```sh", command.replace("  ", " "), "```", "", *table, "",
            "Signatures:", "", *[f"- {r['label']}: `{r['signature']}`" for r in found["rows"]
                                 if r["label"] in (own, first)]]))
    config = config_of_options(recipe.score, built, headline)
    sections += [("Use it", use_section(name, config)),
                 ("Rebuild it", rebuild_section(name, recipe, args.variant))]
    if recipe.variants:
        sections.append(("Variants built on demand", [
            f"- `{v}`: `crossalign export --build {name} --variant {v}"
            f"{' --from CLONE' if recipe.needs_clone else ''}` (train options "
            f"{' '.join(opts)}), then `--encoder {name}-{v}`" for v, opts in recipe.variants]))
    title = (f"{name}: {meta['encoder']}, layer {meta['layer']}, `{meta['mapping_type']}`"
             + (" + sentence map" if meta.get("sentence_map") else "") + f", {recipe.pair}")
    return card_text(title, headline, sections), config
