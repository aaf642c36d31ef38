"""The direction of imports, read from the source with ``ast``: the command line sits on top of
the library, and the translator takes the vocabulary it is given."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "safetychip"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module *path* imports, as absolute dotted names (also inside functions)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _library() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts)


def _offenders(paths: list[Path], forbidden: str) -> list[str]:
    return [
        f"{p.relative_to(PACKAGE.parent)} imports {name}"
        for p in paths
        for name in sorted(_imports(p))
        if name == forbidden or name.startswith(forbidden + ".")
    ]


def test_imports_are_read_with_their_package():
    imports = _imports(PACKAGE / "cli" / "monitor.py")
    assert "safetychip.monitor.read_trace" in imports and "safetychip.cli._common" in imports


def test_library_does_not_import_cli():
    """``safetychip.cli`` is on top: the library never imports it (``__main__`` runs it)."""
    library = [p for p in _library() if p.name != "__main__.py"]
    assert len(library) > 50
    assert _offenders(library, "safetychip.cli") == []


def test_no_command_modules_in_the_library():
    assert sorted(p.name for p in _library() if p.name == "_cli.py") == []


@pytest.mark.parametrize("package", ["translate", "monitor"])
def test_translate_and_the_monitor_do_not_import_environments(package):
    """The translator takes the vocabulary it is given; the specification is in the core."""
    paths = sorted((PACKAGE / package).rglob("*.py"))
    assert _offenders(paths, "safetychip.envs") == []


def test_the_monitor_does_not_import_translate():
    assert _offenders(sorted((PACKAGE / "monitor").rglob("*.py")), "safetychip.translate") == []
