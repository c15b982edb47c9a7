"""The package's layers, read from its source: the engine imports nothing of the package outside
itself and no framework, the import graph has no cycle (imports inside functions and those under
`if TYPE_CHECKING:` counted: a circle the type checker walks is still a circle), no source file is
over 800 lines, and the core modules that read what methods declare name none of them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mad_tasks.engine.catalogue import CATALOGUE

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "mad_tasks"
MAX_LINES = 800


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth: inside functions and under `if TYPE_CHECKING:` too."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def imports_of(name: str) -> set[str]:
    """The modules `name` imports: package modules by their module name (`from . import prompts`
    is `...engine.prompts`), anything else by its top-level name."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    base = name if is_package(name) else name.rpartition(".")[0]
    got: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            got.update(alias.name for alias in node.names)
            continue
        if node.level:
            anchor = base.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            target = ".".join([*anchor, *([node.module] if node.module else [])])
        else:
            target = node.module or ""
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            got.add(sub if sub in MODULES else target)
    return {g if g.split(".")[0] == PACKAGE else g.split(".")[0] for g in got}


GRAPH = {name: {m for m in imports_of(name) if m in MODULES} for name in MODULES}


def test_the_engine_imports_only_the_engine() -> None:
    outside = {
        name: sorted(
            m
            for m in imports_of(name)
            if (m.startswith(PACKAGE) and not m.startswith(f"{PACKAGE}.engine"))
            or m == "inspect_ai"
        )
        for name in MODULES
        if name.startswith(f"{PACKAGE}.engine")
    }
    assert {k: v for k, v in outside.items() if v} == {}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    assert strongly_connected(GRAPH) == []


def test_type_only_and_function_level_imports_count() -> None:
    """A circle closed only by a type-only import (as cortex's viewer once closed one back to the
    debate) is found: the imports under `if TYPE_CHECKING:` are edges of the graph."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .debate import Options\n"
        "else:\n"
        "    import json\n"
        "def f():\n"
        "    from . import records\n"
    )
    imported = {alias.name for node in _import_nodes(tree) for alias in node.names}
    assert imported == {"TYPE_CHECKING", "Options", "json", "records"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(graph) == [["a", "b", "c"], ["e"]]


def test_no_source_file_is_over_800_lines() -> None:
    long = {
        name: n
        for name, path in MODULES.items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_methods_live_in_families() -> None:
    """engine/methods/ holds one package per paper's family (the five papers' at least) and at most
    12 modules of its own; each family's `__init__` names its paper and spec in its docstring and
    imports nothing (no circle through a package)."""
    methods = SRC / PACKAGE / "engine" / "methods"
    assert len([p for p in methods.glob("*.py") if p.name != "__init__.py"]) <= 12
    families = sorted(p.parent.name for p in methods.glob("*/__init__.py"))
    assert {"cortex", "d3", "decision", "pd3", "tod"} <= set(families)
    for family in families:
        tree = ast.parse((methods / family / "__init__.py").read_text(encoding="utf-8"))
        assert "research/seed-" in (ast.get_docstring(tree) or ""), family
        assert _import_nodes(tree) == [], family


def names_in_code(path: Path) -> set[str]:
    """The identifiers and the words of the string literals of a module's code (docstrings
    aside): where a module would name a method."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.update((node.asname or node.name).split("."))
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.update(node.module.split("."))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            found.update(re.findall(r"\w+", node.value))
    return found


@pytest.mark.parametrize(
    "core", ["engine/records.py", "engine/transitions.py", "models/sim.py", "engine/spec.py"]
)
def test_the_core_modules_name_no_method(core: str) -> None:
    """The modules that read what each method declares name none of them, in their code or their
    imports."""
    path = SRC / PACKAGE / core
    assert sorted(names_in_code(path) & set(CATALOGUE.names())) == []
    assert not any(m.startswith(f"{PACKAGE}.engine.methods") for m in GRAPH[module_name(path)])
