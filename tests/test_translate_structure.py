"""The translator's structure (issue 34): no module of ``safetychip/translate`` imports a private
name of another, and the package stays small."""

import ast
from pathlib import Path

import safetychip.translate

PACKAGE = Path(safetychip.translate.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))


def _private_imports(path: Path) -> list[str]:
    """``module.name`` for each private name *path* imports from a module of its package."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "safetychip.translate."
        ):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_the_package_has_its_modules():
    assert len(MODULES) > 10


def test_no_module_imports_a_private_name_of_another():
    found = {p.name: names for p in MODULES if (names := _private_imports(p))}
    assert found == {}


def test_the_check_finds_a_private_import(tmp_path):
    bad = tmp_path / "_bad.py"
    bad.write_text("from ._grammar import _clean, normalize\n"
                   "def f():\n    from ._frames import _NUMBER\n")  # fmt: skip
    assert _private_imports(bad) == ["_grammar._clean", "_frames._NUMBER"]
