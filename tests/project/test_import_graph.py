"""The package's module import graph is a DAG with render at the top (issue 10 §3).

The graph is read from the sources with :mod:`ast`, so an import inside a
function, a ``try`` or an ``if`` counts exactly as one at the top of a module:
a lazy import does not hide a cycle.  Imports under ``if TYPE_CHECKING:`` are
never executed, so they are kept apart: they may not create a run-time cycle,
but they must still respect the layering (nothing below render names render).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "sdg_automata"
ROOT = "sdg_automata"
#: the only modules allowed above render: the command line and the package root
ABOVE_RENDER = {ROOT, f"{ROOT}.__main__", f"{ROOT}.cli"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, type_only: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement, wherever it stands, with whether it is under TYPE_CHECKING."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, type_only
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), True)
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), type_only)
        else:
            yield from _imports(node, type_only)


def _targets(module: str, path: Path, node: ast.stmt, known: set[str]) -> set[str]:
    """The package modules one import statement loads."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name.split(".")[0] == ROOT}
    assert isinstance(node, ast.ImportFrom)
    if node.level == 0:
        if not node.module or node.module.split(".")[0] != ROOT:
            return set()
        base = node.module
    else:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    # `from . import render` loads the submodule render; `from .x import name` loads x
    subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known}
    return subs or {base}


def import_graph(*, type_only: bool = False) -> dict[str, set[str]]:
    """module -> modules it imports (at run time, or only for type checking)."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, typing_only in _imports(tree):
            if typing_only == type_only:
                graph[module] |= _targets(module, path, node, known) - {module}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of modules, or None (iterative DFS, three colours)."""
    colour = dict.fromkeys(graph, 0)
    for start in graph:
        if colour[start]:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                colour[node] = 2
            elif colour.get(child, 2) == 1:
                return path[path.index(child):] + [child]
            elif colour.get(child, 2) == 0:
                colour[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def _above(graph: dict[str, set[str]], target: str) -> set[str]:
    """Every module that imports ``target``, directly or through others."""
    seen: set[str] = set()
    todo = [m for m, ts in graph.items() if target in ts]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += [n for n, ts in graph.items() if m in ts]
    return seen


def _in_cli(module: str) -> bool:
    return module in ABOVE_RENDER or module.startswith(f"{ROOT}.cli.")


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert _above({"a": {"b"}, "b": {"c"}, "c": set()}, "c") == {"a", "b"}


def test_lazy_imports_count(tmp_path: Path) -> None:
    tree = ast.parse("def f():\n    from .render import diagram\n"
                     "if TYPE_CHECKING:\n    from .grammar import Rule\n")
    found = [(ast.unparse(n), t) for n, t in _imports(tree)]
    assert found == [("from .render import diagram", False), ("from .grammar import Rule", True)]


def test_the_run_time_import_graph_is_acyclic() -> None:
    graph = import_graph()
    assert f"{ROOT}.render" in graph and len(graph) > 15
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


@pytest.mark.parametrize("type_only", [False, True], ids=["run time", "type checking"])
def test_render_is_at_the_top(type_only: bool) -> None:
    graph = import_graph(type_only=type_only)
    below = sorted(m for m, ts in graph.items() if f"{ROOT}.render" in ts and not _in_cli(m))
    assert below == [], f"{below} import render, which presents; nothing below it may"
    cli_importers = sorted(m for m, ts in graph.items()
                           if any(_in_cli(t) and t != ROOT for t in ts) and not _in_cli(m))
    assert cli_importers == []


def test_only_the_command_line_and_the_root_are_above_render() -> None:
    graph = import_graph()
    assert all(_in_cli(m) for m in _above(graph, f"{ROOT}.render"))
    # and render does present the engine's objects: it imports them, they do not import it
    # (render is a package of concepts: its modules together)
    render = set().union(*(ts for m, ts in graph.items()
                           if m == f"{ROOT}.render" or m.startswith(f"{ROOT}.render.")))
    assert {f"{ROOT}.automaton.construction", f"{ROOT}.search.decide",
            f"{ROOT}.derivation.gamegraph"} <= render


#: the layers of docs/architecture.md, bottom up: a module imports only from its own layer or
#: the layers below; the packages of one layer (search and derivation) are independent of
#: each other
LAYERS = [
    {"errors"},
    {"runtime"},
    {"kernels"},
    {"grammar"},
    {"automaton"},
    {"generators"},
    {"games"},
    {"search", "derivation"},
    {"sweeps"},
    {"render"},
    {"cli"},
]
#: above every layer: the package root (its lazy names) and ``python -m``
TOP = {ROOT, f"{ROOT}.__main__"}


def _package(module: str) -> str:
    """The layer package of a module: sdg_automata.search.strategies.sat -> search."""
    return module.split(".")[1]


def test_every_module_sits_in_a_layer() -> None:
    placed = {p for layer in LAYERS for p in layer}
    loose = sorted(m for m in _modules() if m not in TOP and _package(m) not in placed)
    assert loose == [], f"{loose}: not in a layer of docs/architecture.md"


def _upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    rank = {p: k for k, layer in enumerate(LAYERS) for p in layer}
    return sorted((m, t) for m, ts in graph.items() for t in ts
                  if m not in TOP and t not in TOP
                  and (rank[_package(t)] > rank[_package(m)]
                       or (rank[_package(t)] == rank[_package(m)]
                           and _package(t) != _package(m))))


@pytest.mark.parametrize("type_only", [False, True], ids=["run time", "type checking"])
def test_the_layers_hold(type_only: bool) -> None:
    assert _upward(import_graph(type_only=type_only)) == []


def test_no_circle_even_for_the_type_checker() -> None:
    run, typing = import_graph(), import_graph(type_only=True)
    both = {m: run[m] | typing[m] for m in run}
    assert _cycle(both) is None, f"import cycle: {' -> '.join(_cycle(both) or [])}"


def test_the_kernels_know_arrays_not_grammars() -> None:
    """The kernels sit right above runtime because they never import grammar or automaton
    (docs/architecture.md): they import only errors, runtime and each other, even for the
    type checker."""
    allowed = (f"{ROOT}.errors", f"{ROOT}.runtime", f"{ROOT}.kernels")
    for type_only in (False, True):
        graph = import_graph(type_only=type_only)
        kernels = {m: ts for m, ts in graph.items()
                   if m == f"{ROOT}.kernels" or m.startswith(f"{ROOT}.kernels.")}
        assert len(kernels) >= 5
        reached = {t for ts in kernels.values() for t in ts}
        assert {t for t in reached if not t.startswith(allowed)} == set()
