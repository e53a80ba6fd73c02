"""Where a batch's results go: one JSON line each, flushed as soon as it is known, into a file
that a later run resumes (`appending`: the results it holds are kept and their inputs skipped,
the file locked while written) or standard output (`writing`)."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

from qlang import limits
from qlang.errors import error
from qlang.executors import BatchError
from qlang.records.jsonl import JsonLine, json_lines, resume_key

T = TypeVar("T")

#: A result line: an object with the item's ``id`` (or its ``input_line``), and an ``error``
#: where it failed.
Result = dict[str, Any]


class Pending:
    """Which inputs still need a result, given what an earlier run wrote.  Keys are counted, so
    that of two inputs with the same id the second is done only once its own result is there."""

    def __init__(self, done: Counter[str] | None = None) -> None:
        self.done = done or Counter()
        self.seen: Counter[str] = Counter()

    def __call__(self, key: str) -> bool:
        self.seen[key] += 1
        return self.seen[key] > self.done[key]

    def todo(self, items: Iterable[T], key: Callable[[T], str]) -> list[T]:
        """The items still pending; an item is keyed only when an earlier run has written results."""
        if not self.done:
            return list(items)
        return [item for item in items if self(key(item))]


@dataclass(frozen=True, slots=True)
class Printed:
    """An item's result lines, printed by the worker that made them, and whether every one
    succeeded: a task of `compile`/`check` (so that the driver only writes), a question's rows
    in the pipeline experiment."""

    text: str
    ok: bool


def printed(results: Sequence[Result]) -> Printed:
    return Printed("".join(json.dumps(result) + "\n" for result in results), all(map(succeeded, results)))


def succeeded(result: Result | Printed) -> bool:
    return result.ok if isinstance(result, Printed) else "error" not in result


#: What a job answers an item with: a result, or a task's result lines printed.
Written = TypeVar("Written", Result, Printed)


@dataclass
class Output:
    """Where a batch writes its results, one JSON line each, flushed as soon as it is known (and,
    `sync`, on disk: a killed machine loses none); `pending`: the inputs that still need one."""

    stream: TextIO
    pending: Pending = field(default_factory=Pending)
    sync: bool = False

    def write(self, result: Result | Printed) -> None:
        self.stream.write(result.text if isinstance(result, Printed) else json.dumps(result) + "\n")
        self.stream.flush()
        if self.sync:
            os.fsync(self.stream.fileno())


def read_results(path: str, key: Callable[[Result], str] = resume_key) -> list[Result]:
    """The results an earlier run wrote to `path` (none where it does not exist), but for a torn
    last line (the run was killed while writing it); a file that is not ours (a line that is not
    a result `key` can key) is refused with a `BatchError`."""
    if not os.path.exists(path):
        return []
    return [result for _, result in _results(path, _whole(limits.read(path, limits.OUTPUT)), key)]


def _whole(data: bytes) -> bytes:
    """The lines of `data` that are whole (end in "\\n")."""
    return data[: data.rfind(b"\n") + 1]


def _results(path: str, whole: bytes, key: Callable[[Result], str],
             ours: Callable[[Result], bool] = lambda result: True) -> list[tuple[str, Result]]:
    """The results of the whole lines of `path`, with their keys; `ours`: whether a result is
    one of this batch's."""
    return [_result(path, line, key, ours) for line in json_lines(whole)]


def _result(path: str, line: JsonLine, key: Callable[[Result], str],
            ours: Callable[[Result], bool]) -> tuple[str, Result]:
    if line.data is not None:
        if not ours(line.data):
            raise error(BatchError, "batch", f"line {line.number}: a result of another command",
                        hint="resume into the output file of the same command", path=path)
        try:
            return key(line.data), line.data
        except (ValueError, TypeError, KeyError, AttributeError):
            pass
    raise error(BatchError, "batch", f"line {line.number}: not a result line of an earlier run",
                hint="resume into the output file of the same batch", path=path)


#: What a result of any batch may hold: the item's id (or line), and why it failed.
COMMON = frozenset({"id", "input_line", "error", "errors"})


def holding(*fields: str) -> Callable[[Result], bool]:
    """A batch's test that a result is its own (`appending`): it holds nothing but `fields` and
    what every result may hold, so that the results of another command over the same ids are
    not taken for this one's.  (A file holding only failures cannot be told apart.)

    >>> holding("ok")({"id": 1, "ok": True}), holding("ok")({"id": 1, "answers": []})
    (True, False)
    """
    allowed = COMMON | frozenset(fields)
    return lambda result: result.keys() <= allowed


def same_file(path: str, other: str | None) -> bool:
    """Whether two paths name one file, under any names (`other` None or "-": none)."""
    return (other not in (None, "-") and os.path.exists(path) and os.path.exists(other)
            and os.path.samefile(path, other))


@contextmanager
def appending(path: str, inputs: str | None = None, *, key: Callable[[Result], str] = resume_key,
              ours: Callable[[Result], bool] = lambda result: True,
              sync: bool = False) -> Iterator[Output]:
    """The output file of a resumable batch, open to append, and what it still lacks.

    It is checked before anything is written (not the file of the `inputs`, only result lines
    `key` can key and `ours` takes for this batch's, no larger than `limits.OUTPUT`; a torn
    last line is dropped so that it is redone) and locked while written, so that two runs never
    answer the same inputs into one file.  A device or a pipe is written to, never read.  Raises
    OSError when it cannot be opened, `BatchError` or `TooLarge` when it must not be.
    """
    if same_file(path, inputs):
        raise error(BatchError, "batch", "the output file is the input file",
                    hint="write the results to another file", path=path)
    with open(path, "a", encoding="utf-8") as stream:
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise error(BatchError, "batch", "another run is writing to it",
                        hint="wait for it to end, or write elsewhere", path=path) from None
        done: Counter[str] = Counter()
        if limits.is_regular(stream):
            with open(path, "rb+") as handle:
                data = limits.read_file(handle, path, limits.OUTPUT)
                whole = _whole(data)
                done.update(found for found, _ in _results(path, whole, key, ours))
                if len(whole) < len(data):
                    handle.truncate(len(whole))
        yield Output(stream, Pending(done), sync)


@contextmanager
def writing(path: str | None, inputs: str, ours: Callable[[Result], bool]) -> Iterator[Output]:
    """Where a batch writes its results: the file `path`, resumed (`appending`: `ours` tells
    its results), or standard output."""
    if path is None:
        yield Output(sys.stdout)
        return
    with appending(path, inputs, ours=ours) as output:
        yield output
