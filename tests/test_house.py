"""House rules read off the source.  The tests': what test modules share lives in conftest.py or
a helper module (strategies.py, tiny_model.py, grammar_check.py), so no test module imports
another, and each can be read, run or deleted alone.  The package's: no class name is defined
twice."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).parent


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


@pytest.mark.parametrize("path", sorted(TESTS.glob("test_*.py")), ids=lambda p: p.name)
def test_no_test_module_imports_another(path: Path) -> None:
    others = {f"tests.{p.stem}" for p in TESTS.glob("test_*.py")} - {f"tests.{path.stem}"}
    assert not imported_modules(path) & others


PACKAGE = TESTS.parent / "qlang"


def class_definitions(root: Path) -> dict[str, list[str]]:
    """Where each class of the package is defined (nested ones too), as ``path:line``."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_no_class_name_is_defined_twice() -> None:
    """A name means one thing across the package (docs/glossary.md lists the words), so a class
    name is defined once: a reader who meets ``Step`` or ``Knowledge`` knows which one."""
    twice = {name: where for name, where in class_definitions(PACKAGE).items()
             if len(where) > 1}
    assert not twice, "class names defined more than once:\n" + "\n".join(
        f"  {name}: {', '.join(where)}" for name, where in sorted(twice.items()))
