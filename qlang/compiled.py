"""The hot modules compiled by mypyc, loaded only when they were built from the sources at hand.

`make install` compiles `GROUP` (scripts/compiled.py) into ``.cache/compiled/<digest>/``, where
the digest hashes the source of every module in `HASHED`: the group and the modules whose types
its compiled code reads.  Nothing compiled sits beside its ``.py``, so an edit can never be
shadowed by an older build: after any edit the digest names a folder that does not exist, and
the pure-Python modules load until the next build.  `install` puts a finder first on
``sys.meta_path`` that serves a group module (and mypyc's shared library, `LIBRARY`) from that
folder; ``QLANG_PURE=1`` keeps every module pure Python.  Importing this module installs it
(``qlang/__init__.py`` does so first of all).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

from qlang.paths import PACKAGE, cache_dir

#: The modules mypyc compiles: the readers of the syntaxes, the IR, the checker, the printers and
#: lowering; strictly typed, and most of a compile's time.
GROUP = (
    "qlang.signatures",
    "qlang.ir",
    "qlang.asp_names",
    "qlang.syntax.descent",
    "qlang.syntax.parsing",
    "qlang.syntax.extent",
    "qlang.syntax.flat",
    "qlang.syntax.nested",
    "qlang.syntax.code",
    "qlang.syntax.gqa",
    "qlang.passes.canonical",
    "qlang.passes.lower",
    "qlang.passes.share",
    "qlang.passes.vocabulary",
    "qlang.passes.typecheck",
)
#: Modules the group imports but which stay pure Python: compiled code relies on their classes
#: and signatures, so their sources count in the digest too (tests/test_compiled.py holds this
#: list to the group's imports).
READ = (
    "qlang.errors",
    "qlang.frozen",
    "qlang.jsontext",
    "qlang.paths",
    "qlang.ontology",
    "qlang.knowledge",
    "qlang.knowledge.graph",
    "qlang.knowledge.relations",
    "qlang.knowledge.sources",
    "qlang.syntax",
)
HASHED = GROUP + READ
#: mypyc's library of the group's shared code, a top-level module (``<group name>__mypyc``).
GROUP_NAME = "qlang"
LIBRARY = f"{GROUP_NAME}__mypyc"
#: The setting that keeps every module pure Python.
PURE = "QLANG_PURE"
#: The file a finished build writes last: a folder without it is a build that did not finish.
STAMP = "stamp.json"
#: Set by the build to the digest it is trying: its folder loads before it is stamped, so that a
#: build that compiles but fails to import is found (and removed) before any process takes it.
TRIAL = "QLANG_COMPILED_TRIAL"


def source(module: str) -> Path:
    """The ``.py`` file of a qlang module (a package's ``__init__.py``)."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def digest(modules: Sequence[str] = HASHED) -> str:
    """What the sources of `modules` hash to, names included."""
    sha = hashlib.sha256()
    sha.update(f"{sys.implementation.cache_tag} {GROUP}".encode())
    for module in modules:
        sha.update(module.encode() + b"\0" + source(module).read_bytes() + b"\0")
    return sha.hexdigest()[:20]


def folder(key: str | None = None) -> Path:
    """Where the build of the current sources (or of the digest `key`) is kept."""
    return cache_dir("compiled") / (key or digest())


def extension(root: Path, module: str) -> Path:
    """The file of a compiled module under a build's folder."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return root.joinpath(*module.split(".")).with_name(module.rpartition(".")[2] + suffix)


class _Finder(MetaPathFinder):
    """Finds a group module in the build of the current sources; the digest is taken when the
    first one is imported (never by a command that imports none), and where there is no such
    build, it finds nothing and Python's own finders load the ``.py``."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._looked = False

    def root(self) -> Path | None:
        if not self._looked:
            self._looked = True
            try:
                built = folder()
            except OSError:
                return None
            trial = os.environ.get(TRIAL) == built.name
            self._root = built if trial or (built / STAMP).is_file() else None
        return self._root

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != LIBRARY and fullname not in GROUP:
            return None
        root = self.root()
        if root is None:
            return None
        file = extension(root, fullname)
        if not file.is_file():
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        spec = ModuleSpec(fullname, loader, origin=str(file))
        spec.has_location = True
        return spec


def install() -> None:
    """Serve the group compiled where a build of the current sources exists (unless `PURE`)."""
    if os.environ.get(PURE) or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())


def active() -> bool:
    """Whether the group runs compiled in this process."""
    module = sys.modules.get("qlang.ir")
    return module is not None and not (module.__file__ or "").endswith(".py")


install()
