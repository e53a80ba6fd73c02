"""JSON lines in and out: one reader, one resumable writer, one batch loop.

Every batch command (compile, check, solve, translate, perceive, eval and the experiments) reads
its input here and maps its job over the items on an executor (`qlang.executors`); all but eval
(which sums its results up) write one result line per item here, in input order, each flushed
as soon as it is known:

- Reading.  `json_lines` splits on "\\n" alone and reads each line on its own, so that a line
  that is not UTF-8, not JSON or no JSON object costs only itself (a `Line` says why); the
  typed readers build on it: `read_records` (programs: compile, check, solve) and
  `read_questions` (question files: translate, eval, the experiments, training data), tolerant
  or strict by a flag, and `read_results` (what an earlier run wrote).
- Writing.  `Output`: where results go, and which inputs still need one; `appending` resumes an
  output file (the results it holds are kept, and their inputs skipped), `writing` picks it or
  standard output.
- The loop.  `run_batch`: a `Job` mapped over the pending items, every result written as it
  comes; `attempt` is the batches' rule that one item's failure is recorded as its result (a
  `QlangError`, or any other exception as an internal error) and the batch goes on.

A program line is a JSON object with an ``id`` and either ``program`` (a string in any syntax)
or ``semantic`` (a GQA operation list); a whole GQA question record works too (its
``semantic``).  A line that cannot be read (not UTF-8, not JSON, no program, or one whose
reading fails in any way) becomes an error record that keeps the line number.
"""

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

from qlang import jsontext, limits
from qlang.api import parse
from qlang.errors import Diagnostic, QlangError, Source, error
from qlang.executors import BatchError, Executor, Job, Local, chunks
from qlang.ir import Node
from qlang.limits import TooLarge
from qlang.syntax import SYNTAXES, gqa, load

T = TypeVar("T")
R = TypeVar("R")

#: A result line: an object with the item's ``id`` (or its ``input_line``), and an ``error``
#: where it failed.
Result = dict[str, Any]

# ----- reading ---------------------------------------------------------------------------------


def split_lines(data: bytes) -> list[bytes]:
    """The lines of JSON-lines `data`, a byte-order mark dropped, split on "\\n" alone (a JSON
    string may hold U+2028 or U+0085, which `str.splitlines` would split on) and left undecoded,
    so that one line that is not UTF-8 costs only itself."""
    return data.removeprefix(b"\xef\xbb\xbf").split(b"\n")


@dataclass(frozen=True, slots=True)
class Line:
    """A line of JSON lines, read: its number and JSON value, or why it holds none (`error`)."""

    number: int
    value: object = None
    error: UnicodeDecodeError | json.JSONDecodeError | TooLarge | None = None

    @property
    def data(self) -> dict[str, Any] | None:
        """Its JSON object; None where it holds none."""
        return self.value if isinstance(self.value, dict) else None

    def problem(self) -> str:
        """Why it holds no JSON object."""
        if isinstance(self.error, UnicodeDecodeError):
            return f"not UTF-8 text ({self.error.reason} at byte {self.error.start})"
        if isinstance(self.error, json.JSONDecodeError):
            return f"not JSON: {self.error.msg}"
        if isinstance(self.error, TooLarge):
            return self.error.diagnostics[0].message
        return "not a JSON object"


def read_line(number: int, raw: bytes) -> Line | None:
    """One line, read; None for a blank one (one longer than `limits.LINE` is not decoded)."""
    if len(raw) > limits.LINE.bytes:
        return Line(number, error=TooLarge([Diagnostic("limit", f"longer than {limits.LINE.bound()}")]))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Line(number, error=exc)
    if not text.strip():
        return None
    try:
        return Line(number, jsontext.loads(text))
    except json.JSONDecodeError as exc:  # jsontext's bounds included: no RecursionError
        return Line(number, error=exc)


def json_lines(data: bytes) -> Iterator[Line]:
    """The lines of JSON-lines `data` (`split_lines`) that are not blank, each read on its own."""
    for number, raw in enumerate(split_lines(data), start=1):
        if (line := read_line(number, raw)) is not None:
            yield line


def resume_key(result: dict[str, Any]) -> str:
    """What identifies an input across runs: its id, or its input line when it has none."""
    return json.dumps(result["id"]) if result.get("id") is not None else f"line {result.get('input_line')}"


# ----- program lines (compile, check, solve) ---------------------------------------------------

@dataclass
class Record:
    """One input line: its id, the program it holds (or why not), and the raw object."""

    id: object
    line: int
    data: dict[str, Any] = field(default_factory=dict)
    root: Node | None = None
    error: QlangError | None = None
    source: Source | None = None

    @property
    def key(self) -> str:
        """What identifies it across runs (`resume_key`)."""
        return resume_key({"id": self.id, "input_line": self.line})

    def error_json(self, exc: QlangError | None = None) -> Result:
        exc = exc or self.error
        assert exc is not None
        result: Result = {"id": self.id, "error": exc.diagnostics[0].to_json()}
        if len(exc.diagnostics) > 1:
            result["errors"] = [d.to_json() for d in exc.diagnostics]
        if self.id is None:
            result["input_line"] = self.line
        return result


def _bad_line(message: str) -> QlangError:
    return QlangError([Diagnostic("input", message)])


def read_records(lines: Iterable[tuple[int, bytes]], syntax: str | None = None) -> Iterator[Record]:
    """The records of numbered input lines (a blank line has none)."""
    for number, raw in lines:
        if (line := read_line(number, raw)) is not None:
            yield _record(line, syntax)


def _record(line: Line, syntax: str | None) -> Record:
    data = line.data
    if data is None:
        return Record(None, line.number, error=_bad_line(f"line {line.number} is {line.problem()}"))
    record_id = data.get("id", data.get("question_id"))

    def read() -> Record:
        root, source = _program(data, syntax, line.number)
        return Record(record_id, line.number, data, root, source=source)

    return attempt(read, lambda exc: Record(record_id, line.number, data, error=exc))


def _program(data: dict[str, Any], syntax: str | None, number: int) -> tuple[Node, Source | None]:
    name = f"<line {number}>"
    if isinstance(data.get("program"), str):
        source = Source(data["program"], name)
        return parse(source.text, syntax, name=name), source
    if "semantic" in data:
        return gqa.to_ir(gqa.steps_from_json(data["semantic"])), None
    raise _bad_line(f"line {number} has neither a 'program' string nor a 'semantic' list")


def line_key(numbered: tuple[int, bytes]) -> str:
    """The `resume_key` of a numbered input line, read for its id alone."""
    number, raw = numbered
    line = read_line(number, raw)
    data = line.data if line is not None else None
    return resume_key({"id": data.get("id", data.get("question_id")) if data else None,
                       "input_line": number})


# ----- question files (translate, eval, the experiments, training data) -----------------------

@dataclass(frozen=True, slots=True)
class Entry:
    """An entry of a question file: its place (its line, or its place among the file's
    records), its id and record, or why it is no record."""

    number: int
    id: object = None
    #: the GQA question record as the file holds it
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None

    @property
    def key(self) -> str:
        """What identifies it across runs (`resume_key`)."""
        return resume_key({"id": self.id, "input_line": self.number})

    @property
    def record(self) -> dict[str, Any]:
        """The record with its id (a GQA question file holds the id as the record's key)."""
        return {"id": self.id, **self.data}


def read_questions(data: bytes, path: str, *, strict: bool = False,
                   limit: int | None = None) -> list[Entry]:
    """The first `limit` entries of a question file: a GQA question file (a JSON object of
    records by id, or a list of records) or JSON lines.

    Tolerant: an entry that is no record (a JSON line that is not UTF-8, not JSON or not an
    object) comes with its `problem`, so that it costs only its own result.  `strict`: such an
    entry, or a record without an id, raises a located QlangError instead.
    """
    try:
        whole = jsontext.loads(data.decode("utf-8-sig"))
    except ValueError:  # not one JSON document (nor UTF-8): JSON lines
        entries = _lines(data)
    else:
        if isinstance(whole, dict) and not _one_record(whole):  # records by id
            entries = [_entry(n, v, k) for n, (k, v) in enumerate(whole.items(), start=1)]
        elif isinstance(whole, list):
            entries = [_entry(n, v) for n, v in enumerate(whole, start=1)]
        elif isinstance(whole, dict):  # JSON lines of one line
            entries = _lines(data)
        else:
            raise error(QlangError, "input", "expected question records with 'id' and 'question'", path=path)
    entries = entries[:limit]
    for entry in entries if strict else ():
        problem = entry.problem or (f"entry {entry.number}: a question record without an id"
                                    if entry.id is None else None)
        if problem is not None:
            raise error(QlangError, "input", problem, path=path)
    return entries


def _one_record(whole: dict[str, Any]) -> bool:
    """Whether a JSON object is one question record (a file of one JSON line) rather than
    records by id: it has an id, or a question or program as text.  Records by id with a value
    that is no record stay records by id, that value an entry with its problem."""
    return "id" in whole or any(isinstance(whole.get(k), str) for k in ("question", "program"))


def _lines(data: bytes) -> list[Entry]:
    return [_entry(line.number, line.value, why=line.error) for line in json_lines(data)]


def _entry(number: int, value: object, key: object = None, why: Exception | None = None) -> Entry:
    if why is not None:
        reason = why.diagnostics[0].message if isinstance(why, QlangError) else f"not JSON: {why}"
        return Entry(number, problem=f"entry {number}: {reason}")
    if not isinstance(value, dict):  # kept by its id where the file gives it one
        return Entry(number, key, problem=f"entry {number}: not a question record")
    return Entry(number, value.get("id") if key is None else key, value)


def questions_by_id(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The records of a question file by id, every entry a record with an id (`read_questions`,
    strict)."""
    try:
        data = limits.read(path, limits.QUESTIONS)
    except OSError as exc:
        raise error(QlangError, "input", f"cannot read: {exc}", path=path) from None
    return {str(entry.id): entry.data for entry in read_questions(data, str(path), strict=True)}


# ----- writing ---------------------------------------------------------------------------------

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
class Progress:
    """A progress bar on standard error, shown on a terminal only (`shown`: at all)."""

    what: str
    total: int
    unit: str = "q"
    shown: bool = True

    def over(self, results: Iterable[T]) -> Iterable[T]:
        from tqdm import tqdm

        shown: Iterable[T] = tqdm(results, total=self.total, desc=self.what, unit=self.unit,
                                  file=sys.stderr, disable=None if self.shown else True)
        return shown


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


def _result(path: str, line: Line, key: Callable[[Result], str],
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


# ----- the loop --------------------------------------------------------------------------------

def run_batch(job: Job[T, Written], items: Iterable[T], output: Output,
              executor: Executor, *, batch: int, progress: Progress | None = None) -> bool:
    """Every batch's loop: `job` mapped over `items` on `executor`, `batch` items a call, each
    result written to `output` as soon as it and those before it are known, in input order;
    True if no item failed.  The items are the pending ones (`Pending.todo`), and a job answers
    each, its failure included (`attempt`): only a batch that cannot go on raises."""
    results: Iterable[Written] = executor.map(job, items, batch=batch)
    ok = True
    for result in progress.over(results) if progress else results:
        ok = succeeded(result) and ok
        output.write(result)
    return ok


def failure(exc: Exception) -> QlangError:
    """Why an item failed, as its result records it: its QlangError, or any other exception as
    an internal error (qlang's fault)."""
    if isinstance(exc, QlangError):
        return exc
    return QlangError([Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}")])


def attempt(work: Callable[[], R], failed: Callable[[QlangError], R]) -> R:
    """What `work` returns, or, where it raises, what `failed` makes of why (`failure`): the
    batches' rule that one item's failure is recorded as its result and the batch goes on."""
    try:
        return work()
    except Exception as exc:  # one item's failure must not end the batch
        return failed(failure(exc))


# ----- answering program lines (compile, check) ------------------------------------------------

#: What a batch does with one well-read line: its result object.  It travels to Ray actors
#: pickled (a forked local worker inherits it).
Handler = Callable[[Record], Result]

#: Lines one task answers: enough that handing them over costs little next to parsing them, few
#: enough that results stream out and the cores stay evenly busy.
CHUNK = 200


def cores() -> int:
    """The cores this process may run on (the default number of local workers)."""
    return len(os.sched_getaffinity(0))


def answer(record: Record, handle: Handler) -> Result:
    """A line's result: its reading error, or what `handle` makes of it, or why that failed."""
    if record.error:
        return record.error_json()
    result = attempt(lambda: handle(record), record.error_json)
    if record.id is None:  # so that a resumed run knows the line answered (`resume_key`)
        result.setdefault("input_line", record.line)
    return result


#: Numbered input lines, as a task carries them.
Lines = list[tuple[int, bytes]]


@dataclass(frozen=True, slots=True)
class Answering:
    """The job of a `compile`/`check` batch (`qlang.executors`): tasks of raw numbered lines in,
    their result lines out, printed: the workers read, answer and print, the driver only writes."""

    handle: Handler
    syntax: str | None = None

    def setup(self) -> Callable[[list[Lines]], list[Printed]]:
        load([self.syntax] if self.syntax else SYNTAXES)
        return lambda tasks: [self.answer(lines) for lines in tasks]

    def answer(self, lines: Lines) -> Printed:
        return printed([answer(record, self.handle) for record in read_records(lines, self.syntax)])


def run(lines: Sequence[bytes], handle: Handler, output: Output, *, syntax: str | None = None,
        jobs: int = 1, chunk: int | None = None, executor: Executor | None = None) -> bool:
    """Answer every line still pending, `chunk` (default `CHUNK`) lines a task; True if every
    line succeeded.  `executor`: where (default: `jobs` local worker processes, no more than
    there are tasks)."""
    todo = output.pending.todo(enumerate(lines, start=1), line_key)
    tasks = list(chunks(todo, chunk or CHUNK))
    return run_batch(Answering(handle, syntax), tasks, output,
                     executor or Local(max(1, min(jobs, len(tasks)))), batch=1)
