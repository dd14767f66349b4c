"""The import graph of the package: no circles, no import against the one-way flow of layers
(rules -> tree -> files -> reach -> evaluate -> belief DAG -> best response -> grade -> solver ->
commands), no import of a module that does not exist, and the layering the layout promises
(the files package below its compatibility faces, nothing but the entry point importing the
CLI, every command module registered).

Every ``import`` and ``from ... import`` statement counts, at module level or inside a function
(a lazy import that reaches back is still a circle), relative or absolute.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from pathlib import Path

import teamleduc

PACKAGE_ROOT = Path(teamleduc.__file__).parent


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` file under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imported_names(module: str, path: Path) -> set[str]:
    """Every dotted name ``module`` imports (absolute; for ``from X import y`` both ``X`` and
    ``X.y``, since ``y`` may be a submodule)."""
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself excluded)."""
    files = module_files(root, package)
    return {m: {n for n in imported_names(m, p) if n in files and n != m} for m, p in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.add(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def describe(component: frozenset[str], graph: dict[str, set[str]]) -> str:
    edges = [f"{a} -> {b}" for a in sorted(component) for b in sorted(graph[a] & component)]
    return ", ".join(sorted(component)) + " (" + "; ".join(edges) + ")"


GRAPH = import_graph(PACKAGE_ROOT, "teamleduc")


def test_the_cycle_finder_sees_lazy_relative_and_absolute_imports(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")  # lazy, relative
    (pkg / "sub" / "b.py").write_text("from ..c import x\n")  # relative, two levels
    (pkg / "c.py").write_text("import pkg.a\nx = 1\n")  # absolute
    (pkg / "d.py").write_text("from . import c\n")  # outside the circle
    graph = import_graph(pkg, "pkg")
    assert graph["pkg.a"] == {"pkg.sub", "pkg.sub.b"}
    assert graph["pkg.d"] == {"pkg", "pkg.c"}
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.sub.b", "pkg.c"})]
    (pkg / "c.py").write_text("x = 1\n")
    assert cycles(import_graph(pkg, "pkg")) == []


def test_no_import_cycles():
    found = cycles(GRAPH)
    assert not found, "import cycles: " + " | ".join(describe(c, GRAPH) for c in found)


def test_every_imported_package_module_exists():
    files = module_files(PACKAGE_ROOT, "teamleduc")
    missing = []
    for module, path in files.items():
        names = imported_names(module, path)
        for name in sorted(names):
            if name.split(".")[0] != "teamleduc" or name in files:
                continue
            parent, _, attribute = name.rpartition(".")
            if parent in names and parent not in files:
                continue  # ``from teamleduc.nothing import y``: reported once, as teamleduc.nothing
            # ``from teamleduc.x import y``: y must be a module or an attribute of x
            if parent not in files or not hasattr(importlib.import_module(parent), attribute):
                missing.append(f"{module} imports {name}")
    assert not missing, missing


def test_no_module_only_re_exports():
    """Internal modules move without compatibility faces: every module but a package's
    ``__init__`` defines something of its own (a function, a class or a value), not only
    names imported from elsewhere."""
    faces = []
    for module, path in module_files(PACKAGE_ROOT, "teamleduc").items():
        if path.name == "__init__.py":
            continue
        body = ast.parse(path.read_text()).body
        own = [
            node
            for node in body
            if not isinstance(node, (ast.Import, ast.ImportFrom))
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
            and not (
                isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["__all__"]
            )
        ]
        if not own:
            faces.append(module)
    assert faces == []


def test_only_the_entry_point_imports_the_cli():
    users = sorted(m for m, imports in GRAPH.items() if "teamleduc.cli" in imports)
    assert users == ["teamleduc.__main__"]


def test_every_command_module_is_registered():
    import teamleduc.commands
    from teamleduc.cli import COMMAND_MODULES, cli

    with_commands = {
        info.name
        for info in pkgutil.iter_modules(teamleduc.commands.__path__)
        if hasattr(importlib.import_module(f"teamleduc.commands.{info.name}"), "COMMANDS")
    }
    registered = {m.__name__.rpartition(".")[2] for m in COMMAND_MODULES}
    assert registered == with_commands
    for module in COMMAND_MODULES:
        for command in module.COMMANDS:
            assert cli.commands[command.name] is command


#: The one-way flow of docs/design.md, lowest layer first: a module may import its own layer and
#: the layers before it, never a later one (not even inside a function). Every module of the
#: package must be placed here, so a new module is placed deliberately.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "teamleduc",
        "teamleduc.errors",
        "teamleduc.names",
        "teamleduc.arguments",
        "teamleduc.interrupts",
        "teamleduc.outputs",
        "teamleduc.decimals",
        "teamleduc.decimal_kernels",
        "teamleduc.peak_memory",
        "teamleduc.config",
        "teamleduc.fused",
    ),
    ("teamleduc.rules",),
    ("teamleduc.tree",),
    (
        "teamleduc.infosets",
        "teamleduc.payoffs",
        "teamleduc.files",
        "teamleduc.strategy",
        "teamleduc.validate",
        "teamleduc.replay",
    ),
    (
        "teamleduc.reach",
        "teamleduc.baselines",
        "teamleduc.entrants",
        "teamleduc.explain",
        "teamleduc.envs.game",  # the one walker of a hand: explain.trace_hand plays through it
    ),
    ("teamleduc.evaluate",),
    ("teamleduc.dag",),
    ("teamleduc.best_response_dp", "teamleduc.best_response"),
    ("teamleduc.grade", "teamleduc.standings", "teamleduc.leaderboard"),
    ("teamleduc.solver",),
    ("teamleduc.studies",),
    ("teamleduc.envs",),
    ("teamleduc.agents",),
    ("teamleduc.openspiel", "teamleduc.rlcard"),  # the framework adapters (optional extras)
    (
        "teamleduc.api",
        "teamleduc.warmup",
        "teamleduc.commands",
        "teamleduc.cli",
        "teamleduc.__main__",
    ),
)


def layer_of(module: str) -> int | None:
    """The layer of ``module``: that of the longest entry of LAYERS that is it or its package."""
    best, depth = None, -1
    for k, entries in enumerate(LAYERS):
        for entry in entries:
            if module == entry or (module.startswith(entry + ".") and entry != "teamleduc"):
                if entry.count(".") > depth:
                    best, depth = k, entry.count(".")
    return best


def test_every_module_has_a_layer():
    missing = sorted(m for m in GRAPH if layer_of(m) is None)
    assert not missing, f"place these modules in LAYERS (tests/test_imports.py): {missing}"


def test_imports_follow_the_layers():
    upward = [
        f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
        for a in sorted(GRAPH)
        for b in sorted(GRAPH[a])
        if layer_of(a) is not None and layer_of(b) is not None and layer_of(b) > layer_of(a)
    ]
    assert not upward, "imports against the flow: " + "; ".join(upward)


def test_the_layer_check_sees_an_upward_import():
    assert layer_of("teamleduc.dag.kernels") == layer_of("teamleduc.dag")
    assert layer_of("teamleduc.solver.driver") > layer_of("teamleduc.best_response")
    assert layer_of("teamleduc.no_such_module") is None


def test_warmup_runs_without_the_optional_frameworks(monkeypatch):
    """``make install`` runs ``python -m teamleduc.warmup`` without the optional extras: the
    framework adapters are skipped where their library is missing (it used to stop the
    install), and every other module is still imported."""
    from teamleduc import warmup

    for library, adapter in (("pyspiel", "teamleduc.openspiel"), ("rlcard", "teamleduc.rlcard")):
        monkeypatch.setitem(sys.modules, library, None)  # `import library` fails
        monkeypatch.delitem(sys.modules, adapter, raising=False)
    names = {m.__name__ for m in warmup.modules()}
    assert "teamleduc.openspiel" not in names and "teamleduc.rlcard" not in names
    assert {"teamleduc.dag", "teamleduc.solver", "teamleduc.envs"} <= names
