"""The knowledge index: triples in an SQLite file (the standard library's sqlite3), built once,
then asked for the edges out of or into a set of words.

Building streams the triples into the edge table in batches (a duplicate edge keeps its
greatest weight), so memory stays bounded whatever the input's size: SQLite's page cache is
`CACHE` bytes and the rest of the table is on disk.  The edge table is keyed by (head,
relation, tail) and indexed by (tail, relation) once it is full, so either end of an edge is a
B-tree search.  An index is written beside its final name and moved there when complete: a killed
build leaves no half index, and readers see the old one or the new.  What it holds (edges per
relation, words) is counted once at the end and kept in its `meta` table.

An index is a file like any other, so nothing in it is trusted: opening one checks its pages
(SQLite's ``quick_check``), its tables and its `meta`; every edge read is checked as it comes
out (words, a known relation, a weight in (0, 1]); and any SQLite error later (the file damaged
or cut while in use) is a `KnowledgeError` naming the file and how to build it again.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from itertools import islice
from pathlib import Path
from typing import Any

from qlang.errors import shown
from qlang.integers import integer
from qlang.knowledge.relations import BY_NAME
from qlang.knowledge.triples import Triple, failure
from qlang.paths import replacing

#: What an index's `meta` table says it is, and the version of its tables.
FORMAT, VERSION = "qlang knowledge index", "1"
#: Triples inserted at a time while building.
BATCH = 50_000
#: Words asked about per query (old SQLite builds take at most 999 parameters).
CHUNK = 500
#: Bytes of SQLite's page cache while building.
CACHE = 64 << 20

_SCHEMA = f"""
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA temp_store = FILE;
PRAGMA cache_size = -{CACHE >> 10};
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE edges (head TEXT NOT NULL, relation TEXT NOT NULL, tail TEXT NOT NULL,
                    weight REAL NOT NULL, PRIMARY KEY (head, relation, tail)) WITHOUT ROWID;
"""
_INSERT = """INSERT INTO edges VALUES (?, ?, ?, ?)
             ON CONFLICT DO UPDATE SET weight = max(weight, excluded.weight)"""
_KNOWS = "SELECT EXISTS (SELECT 1 FROM edges WHERE head = ?) OR EXISTS (SELECT 1 FROM edges WHERE tail = ?)"
_WORDS = "SELECT count(*) FROM (SELECT head FROM edges UNION SELECT tail FROM edges)"
#: The columns of each table an index has, in order (what `PRAGMA table_info` names).
_TABLES = {"meta": ("key", "value"), "edges": ("head", "relation", "tail", "weight")}
#: The most edges or words an index's `meta` may count (SQLite's most rows).
_MOST = 2**63 - 1
#: The most problems `quick_check` lists (one is enough to refuse the file).
_PROBLEMS = 3
#: SQLite's steps between looks at the clock while a deadline holds (about a millisecond's work).
_STEPS = 10_000


class OutOfTime(Exception):
    """A query was stopped at the deadline `Index.until` set."""


def build(triples: Iterable[Triple], path: Path, about: Mapping[str, str], *, force: bool = False,
          stopped: Callable[[], bool] = lambda: False) -> Index:
    """A new index of `triples` at `path` (replacing what is there once it is complete), with
    `about` (where it came from) in its `meta` table; its folder made where missing, and `path`
    checked before any work (`check_target`; a command checks it before making the folder).
    SQLite looks at `stopped` as it works, so that a signal (whose handler makes it true and
    raises KeyboardInterrupt) stops a long statement too: then KeyboardInterrupt is raised and
    no file is left behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    check_target(path, force=force)
    try:
        with replacing(path) as partial, closing(sqlite3.connect(partial)) as db:
            db.set_progress_handler(stopped, _STEPS)  # Python runs, so a signal's handler does
            db.executescript(_SCHEMA)
            rows = ((t.head, t.relation, t.tail, t.weight) for t in triples)
            while batch := list(islice(rows, BATCH)):
                db.executemany(_INSERT, batch)
            db.execute("CREATE INDEX edges_by_tail ON edges (tail, relation)")
            relations = dict(db.execute("SELECT relation, count(*) FROM edges GROUP BY relation"))
            meta = {**about, "format": FORMAT, "version": VERSION, "relations": json.dumps(relations),
                    "words": str(db.execute(_WORDS).fetchone()[0])}
            db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            db.commit()
    except (sqlite3.Error, OSError) as exc:  # a full disk, a folder that cannot be made
        if stopped():  # SQLite interrupted: the signal's KeyboardInterrupt was lost inside it
            raise KeyboardInterrupt from None
        raise failure(f"cannot be written ({exc})", str(path)) from None
    return Index(path)


def check_target(path: Path, *, force: bool = False) -> None:
    """That an index may be written at `path` (raises `KnowledgeError` before any work): its
    folder exists, and what is there is nothing, or a regular file that is an index of qlang's
    (any regular file, with `force`).  A device, a FIFO or a folder is never replaced."""
    if not path.parent.is_dir():
        raise failure(f"the output folder {path.parent} does not exist", str(path))
    try:
        status = path.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise failure(exc.strerror or str(exc), str(path)) from None
    if not stat.S_ISREG(status.st_mode):
        raise failure("not a regular file: an index is written beside it and moved there, which "
                      "would replace it", str(path), hint="give --out a file's name")
    if not force and not _is_ours(path):
        raise failure("an existing file that is no knowledge index: building would replace it", str(path),
                      hint="give --out another name, or --force to replace it")


def _is_ours(path: Path) -> bool:
    """Whether the file at `path` says it is an index of qlang's (of any version)."""
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            found = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.Error:
        return False
    return found is not None and found[0] == FORMAT


class Index:
    """An index file, opened read-only; each process opens its own connection on first use (a
    forked worker must not share its parent's)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: tuple[int, sqlite3.Connection] | None = None
        self._deadline: float | None = None
        with self._reading():
            self._check_file()
            self.about = dict(self._connection().execute("SELECT key, value FROM meta"))
        if (self.about.get("format"), self.about.get("version")) != (FORMAT, VERSION):
            raise failure("not a knowledge index of this version of qlang", str(path), hint=self.rebuild)
        self.relations, self.words = self._counts()

    @property
    def rebuild(self) -> str:
        """How to make this index again, as an error's hint says it."""
        return f"build it again with qlangc kb build FILE... --out {self.path}"

    def _check_file(self) -> None:
        """That the file is an SQLite database whose pages are sound and whose tables are an
        index's (raises `KnowledgeError`, or sqlite3.Error where SQLite cannot read it)."""
        problems = [str(row[0]) for row in self._connection().execute(f"PRAGMA quick_check({_PROBLEMS})")]
        if problems != ["ok"]:
            said = " ".join(" ".join(problems).split())  # SQLite's report, on one line
            raise failure(f"the index is damaged (SQLite's quick_check: {shown(said, 200)})", str(self.path),
                          hint=self.rebuild)
        for table, columns in _TABLES.items():
            found = tuple(row[1] for row in self._connection().execute(f"PRAGMA table_info({table})"))
            if found != columns:
                raise failure(f"not a knowledge index (its table {table!r} has the columns {found}, "
                              f"not {columns})", str(self.path), hint=self.rebuild)

    def _counts(self) -> tuple[dict[str, int], int]:
        """Edges per relation and words, as the `meta` table says (raises `KnowledgeError` where
        it says something else)."""
        try:
            relations = json.loads(self.about.get("relations", "{}"))
            words = integer(str(self.about.get("words", "0")), most=_MOST)
        except (ValueError, TypeError, RecursionError):  # not JSON, not text, nested deep
            relations, words = None, 0
        if not (isinstance(relations, dict) and all(
                name in BY_NAME and type(count) is int and 0 <= count <= _MOST
                for name, count in relations.items())):
            raise failure("not a knowledge index (its meta table's relations or words are not counts)",
                          str(self.path), hint=self.rebuild)
        return relations, words

    @contextmanager
    def until(self, deadline: float) -> Iterator[None]:
        """Queries stopped at `deadline` (`time.monotonic`), raising `OutOfTime`: a query over a
        hub of millions of edges is one call into SQLite, which only SQLite can cut short."""
        connection, self._deadline = self._connection(), deadline
        connection.set_progress_handler(lambda: time.monotonic() > deadline, _STEPS)
        try:
            yield
        finally:
            connection.set_progress_handler(None, 0)
            self._deadline = None

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """SQLite's errors while reading this index as `KnowledgeError`s naming the file (a
        query stopped at a deadline as `OutOfTime`)."""
        try:
            yield
        except sqlite3.Error as exc:
            if self._deadline is not None and time.monotonic() > self._deadline:
                raise OutOfTime from None
            raise failure(f"not a knowledge index, or a damaged one ({exc})", str(self.path),
                          hint=self.rebuild) from None

    def _edge(self, row: tuple[Any, ...]) -> Triple:
        """An edge as read from the file, checked: a crafted or damaged index can hold anything."""
        head, relation, tail, weight = row
        if not (type(head) is str and type(tail) is str and relation in BY_NAME
                and type(weight) is float and 0 < weight <= 1):
            raise failure(f"not a knowledge index (an edge {shown_row(row)} is not words, a relation "
                          "and a weight in (0, 1])", str(self.path), hint=self.rebuild)
        return Triple(head, relation, tail, weight)

    def __reduce__(self) -> tuple[type[Index], tuple[Path]]:
        """Pickled as its path (a Ray actor gets the index, not the connection), opened again."""
        return Index, (self.path,)

    @property
    def edge_count(self) -> int:
        return sum(self.relations.values())

    def _connection(self) -> sqlite3.Connection:
        if self._db is None or self._db[0] != os.getpid():
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            self._db = (os.getpid(), sqlite3.connect(uri, uri=True, check_same_thread=False))
        return self._db[1]

    def edges(self, words: Iterable[str], *, into: bool = False, relations: Collection[str] | None = None,
              limit: int | None = None) -> list[Triple]:
        """The edges out of `words` (into them, with `into`), of `relations` (default: all);
        with `limit`, the `limit` strongest (ties in edge order), which SQLite picks for every
        `CHUNK` words, so that a hub's millions of edges never become Python objects and no more
        than twice `limit` are held however many words are asked about."""
        column = "tail" if into else "head"
        wanted = sorted(set(words))
        kinds = sorted(relations) if relations is not None else []
        only = f" AND relation IN ({', '.join('?' * len(kinds))})" if relations is not None else ""
        best = " ORDER BY weight DESC, head, relation, tail LIMIT ?" if limit is not None else ""
        found: list[Triple] = []
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start:start + CHUNK]
            query = (f"SELECT head, relation, tail, weight FROM edges "
                     f"WHERE {column} IN ({', '.join('?' * len(chunk))}){only}{best}")
            values = [*chunk, *kinds, *([] if limit is None else [limit])]
            with self._reading():
                found += map(self._edge, self._connection().execute(query, values))
            if limit is not None:
                found = sorted(found, key=lambda edge: (-edge.weight, edge))[:limit]
        return found

    def knows(self, word: str) -> bool:
        """Whether `word` is an end of some edge."""
        with self._reading():
            return bool(self._connection().execute(_KNOWS, (word, word)).fetchone()[0])

    def triples(self) -> Iterator[Triple]:
        """Every edge, in order (streamed)."""
        with self._reading():
            for row in self._connection().execute("SELECT head, relation, tail, weight FROM edges"):
                yield self._edge(row)


def shown_row(row: tuple[Any, ...]) -> str:
    """A row of the edge table for a message, each value cut short."""
    return "(" + ", ".join(shown(str(value), 20) if isinstance(value, str) else repr(value)[:20]
                           for value in row) + ")"
