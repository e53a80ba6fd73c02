"""The tests' own house rule: what test modules share lives in conftest.py or a helper module
(strategies.py, tiny_model.py, grammar_check.py), so no test module imports another, and each
can be read, run or deleted alone."""

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
