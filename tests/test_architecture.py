"""The layout's rules, read from the source: the library never imports Lightning or ``train``,
its subpackages form layers (no arrow points up), experiments never import each other, train/
keeps its modules in folders, no module grows past 300 lines, another subpackage is named by its
absolute name, and no import — at the top, in a function, or by name through the two lookups
that exist — closes a cycle."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = {"demo_table", "comparison", "cbli_simulation", "unsupervised_comparison",
               "joint_align_comparison"}
MAX_LINES = 300


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("package", ["alignment", "train"])
def test_no_module_is_longer_than_300_lines(package):
    long = {module_name(p): n for p in modules(package)
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_the_library_imports_neither_lightning_nor_train():
    bad = {module_name(p): sorted(n for n in imports(p) if n.split(".")[0] in
                                  ("pytorch_lightning", "lightning", "train"))
           for p in modules("alignment")}
    assert not {k: v for k, v in bad.items() if v}


def test_no_experiment_imports_another():
    for path in modules("train/experiments"):
        others = {n.split(".")[2] for n in imports(path) if n.startswith("train.experiments.")
                  and len(n.split(".")) > 2} & EXPERIMENTS - {path.stem}
        assert not others, f"{path.stem} imports {others}"


def test_top_level_imports_form_no_cycle():
    """With every import at the top of its module, the package graph is acyclic; so no
    function-level import is needed to hide a cycle."""
    names = {module_name(p): p for pkg in ("alignment", "train") for p in modules(pkg)}
    graph = {}
    for name, path in names.items():
        deps = set()
        for imported in imports(path) | lookups().get(name, set()):
            while imported and imported not in names:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                deps.add(imported)
        graph[name] = deps
    # packages' __init__ re-exports are edges too; a cycle through an __init__ and its own
    # submodule is how packages work, not a cycle
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for dep in graph[node]:
            if dep.startswith(node + ".") or node.startswith(dep + "."):
                continue
            if state.get(dep) == 1:
                raise AssertionError(" → ".join(stack[stack.index(dep):] + [dep]))
            if dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for name in graph:
        if name not in state:
            visit(name, [name])


# The only imports by name: the library's public names (imported on first use), read here as
# graph edges, and `crossalign fit` pointing recipes' former class paths at today's classes (the
# top floor: no cycle through it). Fitter classes are found by reference (fitting.fitters).
LOOKUPS = {"alignment/lazy.py", "alignment/encoding/hub.py", "alignment/xmover/gguf.py",
           "train/cli/fit.py"}


def lookups() -> dict[str, set[str]]:
    """Edges the import statements do not show: a package with lazy public names → the
    submodules they come from."""
    import importlib

    edges: dict[str, set[str]] = {}
    for path in modules("alignment"):
        if path.name == "__init__.py" and "lazy_attributes(" in path.read_text():
            package = module_name(path)
            public = importlib.import_module(package)._PUBLIC
            edges[package] = {f"{package}.{module}" for module in public.values()}
    return edges


def test_only_the_known_lookups_import_by_name():
    """No dotted-string module lookup but the lazy public names (``hub`` and ``gguf`` import
    third-party packages that ship encoders and LMs, not ours)."""
    users = {str(p.relative_to(ROOT)) for pkg in ("alignment", "train") for p in modules(pkg)
             if "import_module(" in p.read_text()}
    assert users <= LOOKUPS, users - LOOKUPS


# alignment's floors, lowest first; the top-level modules (errors, atomic, names, lazy,
# version, signature) are the ground every floor may use
FLOORS = ["mappings", "data", "encoding", "export", "xmover", "metrics", "evaluation", "unsupervised",
          "judgments"]
# packages that share a floor with another (they import each other): the scorer and its terms
SAME_FLOOR = {"terms": "xmover"}


def test_alignment_subpackages_only_import_downwards():
    up = []
    for path in modules("alignment"):
        parts = path.relative_to(ROOT / "alignment").parts
        if len(parts) == 1:
            floor = None
            assert all(n.split(".")[1] not in FLOORS for n in imports(path)
                       if n.startswith("alignment.") and path.name != "__init__.py"), path
            continue
        floor = FLOORS.index(SAME_FLOOR.get(parts[0], parts[0]))
        for name in imports(path):
            target = name.split(".")[1] if name.startswith("alignment.") else None
            target = SAME_FLOOR.get(target, target)
            if target in FLOORS and FLOORS.index(target) > floor:
                up.append(f"{module_name(path)} → {name}")
    assert not up, up


# train's floors, highest first (docs/architecture.md): a subpackage imports only its own
# floor and those below it
TRAIN_FLOORS = ["cli", "experiments", "fitting", "unsupervised", "modules", "callbacks", "data",
                "encoders", "runs", "ground"]


def test_train_keeps_its_modules_in_floors():
    """train/ is its folders, each a floor of TRAIN_FLOORS: no module sits at its top."""
    top = sorted(p.name for p in (ROOT / "train").glob("*.py") if p.name != "__init__.py")
    assert not top, top
    folders = {p.name for p in (ROOT / "train").iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(TRAIN_FLOORS)


def test_train_subpackages_only_import_downwards():
    up = []
    for path in modules("train"):
        parts = path.relative_to(ROOT / "train").parts
        if len(parts) == 1:
            continue
        floor = TRAIN_FLOORS.index(parts[0])
        for name in imports(path):
            target = name.split(".")[1] if name.startswith("train.") and "." in name else None
            if target in TRAIN_FLOORS and TRAIN_FLOORS.index(target) < floor:
                up.append(f"{module_name(path)} → {name}")
    assert not up, up


def test_the_library_names_no_class_of_train_by_a_dotted_string():
    found = [f"{module_name(p)}:{node.lineno}" for p in modules("alignment")
             for node in ast.walk(ast.parse(p.read_text()))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and re.fullmatch(r"train(\.\w+)+", node.value)]
    assert not found, found


# the same concept on the two floors (library / Lightning side), the only file names that
# appear twice; docs/architecture.md lists them
TWINS = {"challenge.py", "flow.py", "joint_align.py", "lm.py", "mining.py", "self_training.py"}


def test_file_names_are_unique_but_for_the_twins():
    where: dict[str, list[str]] = {}
    for package in ("alignment", "train", "benchmarks"):
        for path in modules(package):
            if path.name not in ("__init__.py", "__main__.py"):
                where.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    shared = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert set(shared) <= TWINS, {k: v for k, v in shared.items() if k not in TWINS}
    for name, paths in shared.items():
        assert sorted(p.split("/")[0] for p in paths) == ["alignment", "train"], paths
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert all(f"`{name}`" in page for name in TWINS)


def test_each_cli_verb_has_its_own_module():
    """``crossalign VERB`` lives in ``train/cli/VERB.py`` (a dash is an underscore)."""
    from train.cli import MODULES

    for module in MODULES:
        verbs = list(module.VERBS)
        assert len(verbs) == 1, (module.__name__, verbs)
        assert module.__name__ == f"train.cli.{verbs[0].replace('-', '_')}"


@pytest.mark.parametrize("package", ["alignment", "train"])
def test_another_subpackage_is_imported_by_its_absolute_name(package):
    """``from train.fitting.plan import …``, not ``from ..fitting.plan``: a module's own package
    is the only one it names relatively, so an import says where it reaches."""
    upward = {module_name(p): [n.lineno for n in ast.walk(ast.parse(p.read_text()))
                               if isinstance(n, ast.ImportFrom) and n.level > 1]
              for p in modules(package)}
    assert not {k: v for k, v in upward.items() if v}


def documented_modules() -> set[str]:
    """The modules docs/architecture.md's module list names, as ``folder/stem``."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    block = page.split("## Module list", 1)[1].split("```", 2)[1]
    named, folder = set(), None
    for line in block.strip().splitlines():
        words = line.split()
        if not line.startswith(" "):
            folder, words = words[0].rstrip("/"), words[1:]
        named.update(f"{folder}/{w}" for w in words)
    return named


def test_the_architecture_page_lists_every_module_and_only_those():
    actual = {str(p.relative_to(ROOT).with_suffix("")) for pkg in ("alignment", "train")
              for p in modules(pkg) if p.stem not in ("__init__", "__main__")}
    named = documented_modules()
    assert not named - actual, f"named but missing: {sorted(named - actual)}"
    assert not actual - named, f"not in docs/architecture.md: {sorted(actual - named)}"


def test_every_dotted_name_the_architecture_page_gives_exists():
    """``train.fitting.plan``, ``alignment.mappings.METHODS``… in backticks resolve to a module
    or an attribute of one."""
    import importlib

    page = (ROOT / "docs" / "architecture.md").read_text()
    missing = []
    for dotted in sorted(set(re.findall(r"`((?:alignment|train)(?:\.\w+)+)", page)) -
                         {"train.py", "alignment.py"}):  # a user's script of that name
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
                break
            except ModuleNotFoundError:
                continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            missing.append(dotted)
    assert not missing, missing
