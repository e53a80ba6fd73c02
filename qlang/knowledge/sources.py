"""Where knowledge comes from: the names `--kb` takes (a file, ``default``, ``none``), the kind
of a file (an index, ConceptNet's assertions, qlang's TSV), and its triples or its index.

A file's kind is read from its first bytes: SQLite's header is an index (`qlangc kb build`'s
output), a first line ``/a/[...`` is ConceptNet's CSV, anything else TSV; gzip is read through.
A text file given to `--kb` is indexed once into the cache, under a name kept by its path,
size and modification time, so an edited file is indexed again and an unchanged one never is
(and a cached index found damaged is built again); building one removes the cached indexes of
files that are gone.
(``./default`` names a file called ``default``.)
"""

from __future__ import annotations

import hashlib
import io
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import closing
from itertools import chain
from pathlib import Path
from typing import BinaryIO, cast

from qlang.knowledge import bundled, conceptnet, tsv
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.index import VERSION, Index, build
from qlang.knowledge.lines import decompressed, lines
from qlang.knowledge.triples import KnowledgeError, Triple, failure
from qlang.paths import cache_dir

DEFAULT, NONE = "default", "none"
#: where the indexes of files of triples given to `--kb` are kept
CACHE = cache_dir("knowledge")
_SQLITE = b"SQLite format 3\x00"
#: the names `_cached` gives: a file's name, the digests of its path and of its state
_CACHED = re.compile(r".{1,40}-[0-9a-f]{12}-[0-9a-f]{12}\.sqlite")
_CONCEPTNET = "/a/["


def read(stream: BinaryIO, name: str, tally: Counter[str]) -> Iterator[Triple]:
    """The triples of a knowledge file (TSV or ConceptNet's CSV, gzipped or not), counting in
    `tally` the edges skipped; raises a located `KnowledgeError` at the first bad line."""
    buffered = stream if isinstance(stream, io.BufferedReader) else \
        io.BufferedReader(cast(io.RawIOBase, stream))  # something to peek into (a test's standard input)
    if buffered.peek(len(_SQLITE))[:len(_SQLITE)] == _SQLITE:
        raise failure("an index, not a file of triples", name)
    numbered = lines(decompressed(buffered), name)
    first = next(numbered, None)
    if first is None:
        return
    rest = chain([first], numbered)
    yield from conceptnet.read(rest, tally) if first.text.startswith(_CONCEPTNET) else tsv.read(rest)


def triples(spec: str, tally: Counter[str]) -> Iterator[Triple]:
    """The triples of a name `--kb` takes: ``default``, an index, or a file of triples."""
    if spec == DEFAULT:
        yield from bundled.index().triples()
        return
    path = Path(spec)
    if _is_index(path):
        yield from Index(path).triples()
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - held while the generator is
    except OSError as exc:
        raise _unreadable(path, exc) from None
    with handle:
        yield from read(handle, spec, tally)


def index(spec: str) -> Index:
    """The index of a name `--kb` takes (a file of triples is indexed first, once)."""
    if spec == DEFAULT:
        return bundled.index()
    path = Path(spec)
    if _is_index(path):
        return Index(path)
    target = _cached(path)
    if target.is_file():
        try:
            return Index(target)
        except KnowledgeError:  # a damaged cache is built again, never an error
            pass
    built = build(triples(spec, Counter()), target, {"source": str(path.resolve())}, force=True)
    same_file = target.name.rsplit("-", 1)[0] + "-"
    for stale in target.parent.glob("*.sqlite"):
        if stale != target and (stale.name.startswith(same_file) or _orphaned(stale)):
            stale.unlink(missing_ok=True)  # never read again
    return built


def knowledge(specs: Sequence[str]) -> Knowledge:
    """The knowledge the `--kb` names given say (none given: the bundled base; ``none``: no
    knowledge at all)."""
    if NONE in specs:
        if len(specs) > 1:
            raise failure(f"{NONE!r} means no knowledge: it takes no other --kb", "--kb")
        return Knowledge(())
    return Knowledge([index(spec) for spec in dict.fromkeys(specs or [DEFAULT])])


def _is_index(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(_SQLITE)) == _SQLITE
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _cached(path: Path) -> Path:
    """Where the index of a file of triples is kept: named by the file's path, then by its size
    and modification time (and the index format's version), so that the indexes of earlier
    states of one file can be found and removed."""
    status = path.stat()
    state = f"{status.st_size}\0{status.st_mtime_ns}\0{VERSION}"
    return CACHE / f"{path.name[:40]}-{_digest(str(path.resolve()))}-{_digest(state)}.sqlite"


def _orphaned(cached: Path) -> bool:
    """Whether a cached index is of a file of triples that is gone (a temporary file, one
    deleted or moved): it is never read again, and a cache of them would only grow."""
    if _CACHED.fullmatch(cached.name) is None:
        return False
    try:
        with closing(sqlite3.connect(f"{cached.resolve().as_uri()}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'source'").fetchone()
    except sqlite3.Error:  # not an index (left alone; a damaged one of ours is rebuilt when asked)
        return False
    return row is not None and not Path(row[0]).exists()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def _unreadable(path: Path, exc: OSError) -> KnowledgeError:
    return failure(exc.strerror or str(exc), str(path))
