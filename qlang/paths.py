"""Where qlang's files are: every folder the library reads or writes by default is named here.

* `package_data`: what the package ships (``qlang/data``: the models, the ontology), found
  through `importlib.resources`.
* `resource_dir`: the decoding grammars and the ASP theory, top-level folders of the checkout
  (``grammars/``, ``theory/``) that the wheel carries as ``qlang/grammars`` and
  ``qlang/theory`` (pyproject.toml's force-include).
* `cache_dir`: folders of ``.cache/`` in the checkout, for what is built once and kept
  (WordNet, the analysed theory, converted models, embeddings).
* `replacing`: how a file is put in its place whole (written beside it, then moved over it).
* `SHARED_DATA`: the GQA data (question files, scene graphs, ASP examples), which lives outside
  the package: the folder ``$QLANG_DATA`` names, by default ``shared/data`` beside the checkout.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

#: the package's folder: installed as files (the checkout, or an unpacked wheel), never zipped
PACKAGE = Path(str(resources.files("qlang"))).resolve()
#: the setting that moves the shared GQA data
DATA_VARIABLE = "QLANG_DATA"
SHARED_DATA = Path(os.environ.get(DATA_VARIABLE) or PACKAGE.parent.parent / "shared" / "data")
GQA_QUESTIONS = SHARED_DATA / "gqa" / "questions"


def package_data(*parts: str) -> Path:
    """A file or folder the package ships under ``qlang/data``."""
    return PACKAGE.joinpath("data", *parts)


def cache_dir(name: str) -> Path:
    """A folder of the project's cache (made by whoever writes there first)."""
    return PACKAGE.parent / ".cache" / name


def resource_dir(name: str) -> Path:
    """A top-level data folder (`grammars`, `theory`): in the wheel, or beside the package."""
    installed = PACKAGE / name
    return installed if installed.is_dir() else PACKAGE.parent / name


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A file beside `path` to write `path`'s new content to: moved over `path` when the block
    ends, removed when it raises (a KeyboardInterrupt too).  A reader never sees half a file,
    and a run killed or a disk filled while writing leaves `path` as it was; the name is the
    process's, so two processes writing one file never write into each other's."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        yield partial
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
