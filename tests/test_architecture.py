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
    """Every library module: not the command line, nor ``python -m safetychip``'s entry point."""
    return sorted(
        p
        for p in PACKAGE.rglob("*.py")
        if "cli" not in p.relative_to(PACKAGE).parts and p != PACKAGE / "__main__.py"
    )


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
    """``safetychip.cli`` is on top: the library never imports it, not even to run it."""
    library = _library()
    assert len(library) > 50
    assert _offenders(library, "safetychip.cli") == []


def test_only_the_entry_point_imports_the_cli_from_outside_it():
    """``python -m safetychip`` is the command line, as the console script is."""
    assert "safetychip.cli.main" in _imports(PACKAGE / "__main__.py")


def test_no_command_modules_in_the_library():
    assert sorted(p.name for p in _library() if p.name == "_cli.py") == []


@pytest.mark.parametrize("package", ["translate", "monitor"])
def test_translate_and_the_monitor_do_not_import_environments(package):
    """The translator takes the vocabulary it is given; the specification is in the core."""
    paths = sorted((PACKAGE / package).rglob("*.py"))
    assert _offenders(paths, "safetychip.envs") == []


def test_the_monitor_does_not_import_translate():
    assert _offenders(sorted((PACKAGE / "monitor").rglob("*.py")), "safetychip.translate") == []


# What each package may import from the others (the top-level modules errors, paths, _io, _names, _display, _public, _short_errors and
# _text are shared by all). The core chain ltl <- automata <- monitor <- shield <- agents <-
# experiments; envs stand on the core (the shield wraps them); llm is the one chat interface
# the translator and the explanations talk through; the explanations run plans on an
# environment through the shield; agents use them all; the command line (tested above) sits on
# top; experiments also evaluate the memory and the translator. The episodic memory plugs into the shield as a filter and encodes commands with llm's
# embedders; it takes scenes as it is given them (no envs). The grounded observer wraps the
# shield's filters as overlays and sits in the shield as a filter (shield, and the core it
# stands on), and proposes through llm's chat models; the chip and the memory reach it only
# as the Filter objects it is given (no memory, no envs).
ALLOWED: dict[str, set[str]] = {
    "ltl": set(),
    "automata": {"ltl"},
    "monitor": {"ltl", "automata"},
    "envs": {"ltl", "automata", "monitor"},
    "shield": {"ltl", "automata", "monitor", "envs"},
    "llm": set(),
    "translate": {"ltl", "automata", "monitor", "llm"},
    "explain": {"ltl", "automata", "monitor", "envs", "shield", "llm"},
    "agents": {"ltl", "automata", "monitor", "shield", "envs", "llm", "translate", "explain"},
    "experiments": {
        "ltl",
        "automata",
        "monitor",
        "shield",
        "envs",
        "llm",
        "agents",
        "memory",
        "translate",
        "gym",  # the shielded learning experiment (imported where it runs: an extra)
    },
    "memory": {"ltl", "automata", "monitor", "shield", "llm"},
    "observer": {"ltl", "automata", "monitor", "shield", "llm"},
    # the shield for Gymnasium environments: an Env adapter, the shield loop, and its monitor
    "gym": {"ltl", "automata", "monitor", "envs", "shield"},
    # course labs: checkers over the core and the explanations (nothing imports labs but cli)
    "labs": {"ltl", "automata", "monitor", "shield", "envs", "explain", "memory", "translate"},
}
SHARED = {
    "errors",
    "paths",
    "_io",
    "_text",
    "_names",
    "_display",
    "_redact",
    "_budget",
    "_public",
    "_short_errors",
}


def _package_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "safetychip" else None


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependencies_point_one_way(package):
    found = set()
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for name in _imports(path):
            other = _package_of(name)
            if other is not None and other != package and other not in SHARED:
                found.add((other, f"{path.relative_to(PACKAGE.parent)} imports {name}"))
    wrong = sorted(line for other, line in found if other not in ALLOWED[package])
    assert wrong == []


def test_every_package_is_placed():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {*ALLOWED, "cli"}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_module_reaches_into_another_package_private_module(package):
    offenders = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for name in _imports(path):
            other = _package_of(name)
            parts = name.split(".")
            private = any(part.startswith("_") for part in parts[2:3])
            if other not in (None, package) and other not in SHARED and private:
                offenders.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert offenders == []


def test_the_rule_catches_an_upward_import(tmp_path, monkeypatch):
    """The test above would see a violation: an import from monitor into agents."""
    fake = tmp_path / "safetychip" / "monitor"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("from ..agents import Chip\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "safetychip")
    found = {_package_of(n) for n in _imports(fake / "bad.py")}
    assert "agents" in found and "agents" not in ALLOWED["monitor"]
