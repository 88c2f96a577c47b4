"""Every import arrow between the project's modules runs one way: the module import graph has no cycle.

The graph is read from the source with `ast`, not from an interpreter, so it counts what a reader sees:
imports at module level, inside functions and under `TYPE_CHECKING` alike (a cycle hidden behind a lazy
import is still two modules that need each other). An edge goes to the module named, or to the submodule a
`from package import name` names; importing `a.b.c` is an edge to `a.b.c` alone, not to the packages above
it, which Python runs first but which the importer does not depend on. networkx finds the cycles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("blueprints", "topology", "components", "policies", "acceptance", "railyard")


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of the packages under `root`, by dotted name (a package by its `__init__.py`)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _absolute(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module an `ImportFrom` reads, with a relative import (`from . import x`) made absolute."""
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _targets(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules that `name` imports (the nearest enclosing module for a name inside one)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(name, path.name == "__init__.py", node)
            wanted = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module for alias in node.names]
        else:
            continue
        for target in wanted:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(root: Path, packages: tuple[str, ...]) -> nx.DiGraph:
    """The directed graph of imports among the packages' modules: an edge from importer to imported."""
    modules = module_files(root, packages)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        graph.add_edges_from((name, target) for target in _targets(name, path, modules))
    return graph


def test_the_projects_modules_import_one_another_without_a_cycle():
    graph = import_graph(ROOT, PACKAGES)
    assert len(graph) > 300  # every module read, not an empty walk
    assert sorted(sorted(cycle) for cycle in nx.simple_cycles(graph)) == []


def test_the_three_circles_once_held_are_gone_each_arrow_one_way():
    graph = import_graph(ROOT, PACKAGES)
    # The arrows that remain between each former pair run one way, through the module each circle was broken by.
    assert graph.has_edge("blueprints.catalog.ec2_sources", "blueprints.catalog.offer_files")
    assert not graph.has_edge("blueprints.catalog.offer_files", "blueprints.catalog.ec2_sources")
    assert graph.has_edge("railyard.program", "railyard.layer_program")
    assert not graph.has_edge("railyard.layer_program", "railyard.program")
    assert graph.has_edge("railyard.online", "railyard.pipeline")
    assert not graph.has_edge("railyard.pipeline", "railyard.online")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("from pkg import b\n", "def later():\n    from pkg.a import thing\n"),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import Thing\n", "from . import a\n"),
        ("import pkg.b\n", "from .a import thing\n"),
    ],
    ids=["lazy import inside a function", "type-checking import and a relative one", "plain import and a relative from"],
)
def test_a_circle_is_found_however_its_imports_are_written(tmp_path, first, second):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(first)
    (package / "b.py").write_text(second)
    (package / "c.py").write_text("from pkg import a\n")  # an arrow into the circle is not part of it
    cycles = list(nx.simple_cycles(import_graph(tmp_path, ("pkg",))))
    assert [sorted(cycle) for cycle in cycles] == [["pkg.a", "pkg.b"]]
