"""The import graph between modules (not only packages), read from the source with ``ast``: it
has no cycles, and no module imports another module's private names.

An edge is every import that runs: at the top of a module or inside a function. An import
under ``if TYPE_CHECKING:`` never runs (it names types for the checker), so it is no edge.
``from package import name`` is an edge to ``package.name`` when that is a module, else to the
package's ``__init__``; importing a module does not count as importing its parents.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(root: Path, package: str = "safetychip") -> dict[str, Path]:
    return {_module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.update(id(inner) for inner in node.body for inner in ast.walk(inner))
    return found


def _imports_from(name: str, path: Path) -> list[tuple[str, list[str], int]]:
    """Each ``from ... import ...`` and ``import ...`` of module *name* that runs: the absolute
    module it names, the names it takes (empty for ``import x``), and its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    type_only = _type_only(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((base, [alias.name for alias in node.names], node.lineno))
    return found


def import_graph(root: Path, package: str = "safetychip") -> nx.DiGraph:
    """The modules of *package* under *root*, with an edge for each import that runs."""
    modules = _modules(root, package)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for base, names, _ in _imports_from(name, path):
            for imported in names or [""]:
                target = f"{base}.{imported}" if imported else base
                target = target if target in modules else base
                if target in modules and target != name:
                    graph.add_edge(name, target)
    return graph


def cycles(graph: nx.DiGraph) -> list[str]:
    """Each set of modules that import each other, directly or around a loop, as text."""
    groups = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    return sorted(" <-> ".join(group) for group in groups)


def private_imports(root: Path, package: str = "safetychip") -> list[str]:
    """Each private name (``_x``, not ``__x__``) imported from another module, unless that
    name is itself a module (``from . import _tasks``)."""
    modules = _modules(root, package)
    found = []
    for name, path in modules.items():
        where = path.relative_to(root).as_posix()
        for base, names, line in _imports_from(name, path):
            for imported in names:
                private = imported.startswith("_") and not imported.startswith("__")
                if private and f"{base}.{imported}" not in modules:
                    found.append(f"{where}:{line} imports {imported} from {base}")
    return found


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checks_see_a_cycle_through_a_function_and_a_private_name(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/_a.py": "from ._b import _helper\n",
        "pkg/_b.py": "def _helper():\n    from . import _a\n",
        "pkg/_c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._d import D\n",
        "pkg/_d.py": "from pkg._c import C\n",
    })  # fmt: skip
    graph = import_graph(tmp_path, "pkg")
    assert cycles(graph) == ["pkg._a <-> pkg._b"]
    assert not graph.has_edge("pkg._c", "pkg._d") and graph.has_edge("pkg._d", "pkg._c")
    assert private_imports(tmp_path, "pkg") == ["pkg/_a.py:1 imports _helper from pkg._b"]


def test_the_graph_of_safetychip_is_read():
    graph = import_graph(ROOT)
    assert graph.number_of_nodes() > 150
    assert graph.has_edge("safetychip.envs.spot._tasks", "safetychip.envs._tasks")
    assert graph.has_edge("safetychip.memory._open", "safetychip.memory._postgres")
    # a type-only import is no edge: the formula prints itself through _print
    assert graph.has_edge("safetychip.ltl._formula", "safetychip.ltl._print")
    assert not graph.has_edge("safetychip.ltl._print", "safetychip.ltl._formula")


def test_module_imports_form_a_dag():
    assert cycles(import_graph(ROOT)) == []


def test_no_environment_imports_another():
    graph = import_graph(ROOT)
    kinds = ("virtualhome", "spot", "thor")
    wrong = [
        f"{a} imports {b}"
        for a, b in graph.edges
        for kind in kinds
        if a.startswith(f"safetychip.envs.{kind}")
        and b.startswith("safetychip.envs.")
        and b.split(".")[2] in kinds
        and b.split(".")[2] != kind
    ]
    assert wrong == []


def test_no_module_imports_another_modules_private_names():
    assert private_imports(ROOT) == []
