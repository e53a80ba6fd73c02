"""The compiled hot modules (qlang/compiled.py): loaded only from a build of the current
sources, never beside them, and giving exactly what the pure-Python modules give."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qlang import compiled
from qlang.paths import PACKAGE

ROOT = PACKAGE.parent


def _imported(module: str) -> set[str]:
    """The qlang modules a module's source imports (under TYPE_CHECKING too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(compiled.source(module).read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("qlang"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names
                         if compiled.source(f"{node.module}.{a.name}").exists())
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("qlang"))
    return found


@pytest.mark.parametrize("module", compiled.GROUP)
def test_every_module_the_group_imports_counts_in_the_digest(module: str) -> None:
    """Compiled code relies on what it imports; an edit there must disable the build too."""
    assert _imported(module) <= set(compiled.HASHED) | {"qlang"}


def test_the_digest_follows_every_hashed_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copies = {m: tmp_path / f"{m}.py" for m in compiled.HASHED}
    for module, copy in copies.items():
        copy.write_bytes(compiled.source(module).read_bytes())
    monkeypatch.setattr(compiled, "source", copies.__getitem__)
    before = compiled.digest()
    for module in ("qlang.ir", "qlang.errors"):
        copies[module].write_text(copies[module].read_text() + "\n")
        assert compiled.digest() not in (before, "")
        before = compiled.digest()


def test_the_finder_serves_the_group_from_its_build_only(tmp_path: Path) -> None:
    finder = compiled._Finder()
    finder._looked, finder._root = True, None
    assert finder.find_spec("qlang.ir") is None  # no build of these sources
    finder._root = tmp_path
    assert finder.find_spec("qlang.ir") is None  # a build without the module
    built = compiled.extension(tmp_path, "qlang.syntax.flat")
    built.parent.mkdir(parents=True)
    built.touch()
    spec = finder.find_spec("qlang.syntax.flat")
    assert spec is not None and spec.origin == str(built)
    assert finder.find_spec("qlang.records.batch") is None  # not in the group
    assert not str(built).startswith(str(PACKAGE))


def test_a_build_loads_once_stamped_or_while_the_build_tries_it(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    built = tmp_path / "0123abcd"
    built.mkdir()
    monkeypatch.setattr(compiled, "folder", lambda: built)
    monkeypatch.delenv(compiled.TRIAL, raising=False)
    assert compiled._Finder().root() is None  # not stamped: unfinished, or failed its trial
    monkeypatch.setenv(compiled.TRIAL, "0123abcd")
    assert compiled._Finder().root() == built
    monkeypatch.delenv(compiled.TRIAL)
    (built / compiled.STAMP).write_text("{}")
    assert compiled._Finder().root() == built


def _outputs(pure: bool) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(compiled.PURE, None)
    if pure:
        env[compiled.PURE] = "1"
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("compiled_outputs.py"))],
                          capture_output=True, text=True, env=env, check=True, cwd=ROOT)
    return done.stdout.splitlines()


def test_pure_and_compiled_give_the_same_on_every_real_program() -> None:
    """Conversions to every syntax, readings back, facts, warnings, and the parse and check
    errors of damaged programs, with their locations, over the 3,091 real GQA programs."""
    if not (compiled.folder() / compiled.STAMP).is_file():
        pytest.skip("no compiled build of these sources (`make install` or scripts/compiled.py builds it)")
    pure, native = _outputs(pure=True), _outputs(pure=False)
    assert json.loads(pure[0]) == {"compiled": False}
    assert json.loads(native[0]) == {"compiled": True}
    assert len(pure) > 3_000
    for expected, got in zip(pure[1:], native[1:], strict=True):
        assert got == expected


def test_a_build_keeps_only_the_newest_few(tmp_path: Path) -> None:
    """Every edit makes a new digest; old builds go, a staging folder in progress stays."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_compiled", ROOT / "scripts" / "compiled.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    names = [f"build{i}" for i in range(script.KEEP + 2)]
    for age, name in enumerate(names):  # build0 is the newest
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (1_000_000 - age, 1_000_000 - age))
    (tmp_path / ".staging").mkdir()
    script.prune(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".staging", *names[:script.KEEP]]


def _frozen_classes() -> list[type]:
    import dataclasses
    import importlib

    found = []
    for name in compiled.GROUP:
        for value in vars(importlib.import_module(name)).values():
            if (isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)
                    and value.__dataclass_params__.frozen):  # type: ignore[attr-defined]
                found.append(value)
    return found


@pytest.mark.parametrize("cls", _frozen_classes(), ids=lambda cls: cls.__qualname__)
def test_every_frozen_dataclass_of_the_group_pickles(cls: type) -> None:
    """Jobs carry signatures and syntaxes to worker processes and Ray actors; compiled, a frozen
    dataclass unpickles only through its own `__reduce__` (qlang/frozen.py)."""
    import gc
    import pickle

    import qlang.syntax  # noqa: F401  (every syntax's extents, forms and grammars exist then)

    instances = [o for o in gc.get_objects() if type(o) is cls]
    assert instances, f"no {cls.__qualname__} to pickle"
    for instance in instances:
        assert pickle.loads(pickle.dumps(instance)) == instance or not cls.__dataclass_params__.eq  # type: ignore[attr-defined]
