"""The layout's rules, read from the source: the library never imports Lightning or ``train``,
its subpackages form layers (no arrow points up), experiments never import each other, train/
keeps its modules in folders, no module grows past 300 lines, another subpackage is named by its
absolute name, and no import — at the top, in a function, or by name through the two lookups
that exist — closes a cycle."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = {"demo", "compare", "simulate", "unsupervised", "joint_align"}
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


# The only imports by name: the method registry's fitter classes (resolved by the fit plan) and
# the library's public names (imported on first use). Both are read here as graph edges.
LOOKUPS = {"train/fitting/fitters.py", "alignment/lazy.py", "alignment/encoding/hub.py"}


def lookups() -> dict[str, set[str]]:
    """Edges the import statements do not show: ``train.fitting.fitters`` → every registered
    fitter's module; a package with lazy public names → the submodules they come from."""
    import importlib

    from alignment.mappings import METHODS

    edges = {"train.fitting.fitters": {m.fitter.rpartition(".")[0] for m in METHODS.values()}}
    for path in modules("alignment"):
        if path.name == "__init__.py" and "lazy_attributes(" in path.read_text():
            package = module_name(path)
            public = importlib.import_module(package)._PUBLIC
            edges[package] = {f"{package}.{module}" for module in public.values()}
    return edges


def test_only_the_known_lookups_import_by_name():
    """No dotted-string class lookup outside the fitter registry (``hub`` imports third-party
    packages that ship encoders, not ours)."""
    users = {str(p.relative_to(ROOT)) for pkg in ("alignment", "train") for p in modules(pkg)
             if "import_module(" in p.read_text()}
    assert users <= LOOKUPS, users - LOOKUPS


# alignment's floors, lowest first; the top-level modules (errors, atomic, names, lazy,
# version, signature) are the ground every floor may use
FLOORS = ["mappings", "data", "encoding", "export", "xmover", "evaluation", "unsupervised", "judgments"]


def test_alignment_subpackages_only_import_downwards():
    up = []
    for path in modules("alignment"):
        parts = path.relative_to(ROOT / "alignment").parts
        if len(parts) == 1:
            floor = None
            assert all(n.split(".")[1] not in FLOORS for n in imports(path)
                       if n.startswith("alignment.") and path.name != "__init__.py"), path
            continue
        floor = FLOORS.index(parts[0])
        for name in imports(path):
            target = name.split(".")[1] if name.startswith("alignment.") else None
            if target in FLOORS and FLOORS.index(target) > floor:
                up.append(f"{module_name(path)} → {name}")
    assert not up, up


def test_train_keeps_its_modules_in_folders():
    """train/ is its folders (cli, modules, callbacks, data, fitting, runs, encoders,
    experiments): no module sits at its top."""
    top = sorted(p.name for p in (ROOT / "train").glob("*.py") if p.name != "__init__.py")
    assert not top, top


@pytest.mark.parametrize("package", ["alignment", "train"])
def test_another_subpackage_is_imported_by_its_absolute_name(package):
    """``from train.fitting.plan import …``, not ``from ..fitting.plan``: a module's own package
    is the only one it names relatively, so an import says where it reaches."""
    upward = {module_name(p): [n.lineno for n in ast.walk(ast.parse(p.read_text()))
                               if isinstance(n, ast.ImportFrom) and n.level > 1]
              for p in modules(package)}
    assert not {k: v for k, v in upward.items() if v}
