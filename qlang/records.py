"""JSON-lines batches: one program per line, every line answered, none lost, resumable.

A line is a JSON object with an ``id`` and either ``program`` (a string in any syntax) or
``semantic`` (a GQA operation list); a whole GQA question record works too (its ``semantic``).
A line that cannot be read (not UTF-8, not JSON, no program, or one whose reading fails in any
way) becomes an error record that keeps the line number, so one bad line never stops a batch.
Lines are split on "\\n" alone (see `qlang.commands.console.read_lines`).
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
from typing import Any, TextIO

from qlang.api import parse
from qlang.errors import Diagnostic, QlangError, Source, error
from qlang.executors import BatchError, Executor, Local
from qlang.ir import Node
from qlang.syntax import SYNTAXES, gqa, load


@dataclass
class Record:
    """One input line: its id, the program it holds (or why not), and the raw object."""

    id: object
    line: int
    data: dict[str, Any] = field(default_factory=dict)
    root: Node | None = None
    error: QlangError | None = None
    source: Source | None = None

    def error_json(self, exc: QlangError | None = None) -> dict[str, object]:
        exc = exc or self.error
        assert exc is not None
        result: dict[str, object] = {"id": self.id, "error": exc.diagnostics[0].to_json()}
        if len(exc.diagnostics) > 1:
            result["errors"] = [d.to_json() for d in exc.diagnostics]
        if self.id is None:
            result["input_line"] = self.line
        return result


def _bad_line(message: str) -> QlangError:
    return QlangError([Diagnostic("input", message)])


def internal_error(exc: Exception) -> QlangError:
    """A failure that is qlang's fault, recorded for its line so that the batch goes on."""
    return QlangError([Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}")])


def read_records(lines: Iterable[tuple[int, bytes]], syntax: str | None = None) -> Iterator[Record]:
    """The records of numbered input lines (a blank line has none)."""
    for number, raw in lines:
        data = _read(number, raw)
        if data is None:
            continue
        if isinstance(data, QlangError):
            yield Record(None, number, error=data)
            continue
        record = Record(data.get("id", data.get("question_id")), number, data)
        try:
            record.root, record.source = _program(data, syntax, number)
        except QlangError as exc:
            record.error = exc
        except Exception as exc:  # one line's failure must not end the batch
            record.error = internal_error(exc)
        yield record


def _read(number: int, raw: bytes) -> dict[str, Any] | QlangError | None:
    """A line's JSON object, or why it has none; None for a blank line."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _bad_line(f"line {number} is not UTF-8 text ({exc.reason} at byte {exc.start})")
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        return _bad_line(f"line {number} is not JSON: {reason}")
    if not isinstance(data, dict):
        return _bad_line(f"line {number} is not a JSON object")
    return data


def _program(data: dict[str, Any], syntax: str | None, number: int) -> tuple[Node, Source | None]:
    name = f"<line {number}>"
    if isinstance(data.get("program"), str):
        source = Source(data["program"], name)
        return parse(source.text, syntax, name=name), source
    if "semantic" in data:
        return gqa.to_ir(gqa.steps_from_json(data["semantic"])), None
    raise _bad_line(f"line {number} has neither a 'program' string nor a 'semantic' list")


def write(out: Any, obj: dict[str, object]) -> None:
    out.write(json.dumps(obj) + "\n")
    out.flush()


# ----- answering lines (compile, check) --------------------------------------------------------

#: What a batch does with one well-read line: its result object.  It travels to Ray actors
#: pickled (a forked local worker inherits it).
Handler = Callable[[Record], dict[str, object]]

#: Lines one task answers: enough that handing them over costs little next to parsing them, few
#: enough that results stream out and the cores stay evenly busy.
CHUNK = 200
#: Numbered input lines, as a task carries them.
Lines = list[tuple[int, bytes]]


def cores() -> int:
    """The cores this process may run on (the default number of local workers)."""
    return len(os.sched_getaffinity(0))


def answer(record: Record, handle: Handler) -> dict[str, object]:
    """A line's result: its reading error, or what `handle` makes of it, or the error it raised."""
    if record.error:
        return record.error_json()
    try:
        return handle(record)
    except QlangError as exc:
        return record.error_json(exc)
    except Exception as exc:  # one line's failure must not end the batch
        return record.error_json(internal_error(exc))


@dataclass(frozen=True, slots=True)
class Answering:
    """The job of a `compile`/`check` batch (`qlang.executors`): raw numbered lines in, their
    result lines out as one text with whether all succeeded, so that the parent only writes."""

    handle: Handler
    syntax: str | None = None

    def setup(self) -> Callable[[list[Lines]], list[tuple[str, bool]]]:
        load([self.syntax] if self.syntax else SYNTAXES)
        return lambda tasks: [self.answer(lines) for lines in tasks]

    def answer(self, lines: Lines) -> tuple[str, bool]:
        results, ok = [], True
        for record in read_records(lines, self.syntax):
            result = answer(record, self.handle)
            ok = ok and "error" not in result and not result.get("errors")
            results.append(json.dumps(result) + "\n")
        return "".join(results), ok


def run(lines: Sequence[bytes], handle: Handler, out: TextIO, *, syntax: str | None = None,
        jobs: int = 1, chunk: int | None = None, pending: Pending | None = None,
        executor: Executor | None = None) -> bool:
    """Answer every line still `pending`, results written to `out` in input order, task by task
    as they come; True if every line succeeded.  A task is `chunk` (default `CHUNK`) lines;
    `executor`: where they are answered (default: `jobs` local worker processes, no more than
    there are tasks)."""
    chunk = chunk or CHUNK
    todo = _todo(lines, pending or Pending())
    tasks = [todo[start:start + chunk] for start in range(0, len(todo), chunk)]
    executor = executor or Local(max(1, min(jobs, len(tasks))))
    ok = True
    for text, task_ok in executor.map(Answering(handle, syntax), tasks, batch=1):
        ok = ok and task_ok
        out.write(text)
        out.flush()
    return ok


def _todo(lines: Sequence[bytes], pending: Pending) -> Lines:
    """The numbered lines still `pending`; a line is read for its id only when an earlier run
    has written results."""
    numbered = list(enumerate(lines, start=1))
    if not pending.done:
        return numbered
    return [(number, raw) for number, raw in numbered if pending(_key(number, raw))]


def _key(number: int, raw: bytes) -> str:
    data = _read(number, raw)
    line_id = data.get("id", data.get("question_id")) if isinstance(data, dict) else None
    return resume_key({"id": line_id, "input_line": number})


def resume_key(result: dict[str, Any]) -> str:
    """What identifies a line across runs: its id, or its input line when it has none."""
    return json.dumps(result["id"]) if result.get("id") is not None else f"line {result.get('input_line')}"


def _results(path: str, key: Callable[[dict[str, Any]], str]) -> list[tuple[str, dict[str, Any]]]:
    """The results an earlier run wrote to `path`, with their keys.  A torn last line (the run was
    killed while writing it) is dropped so that it is redone, but only once every whole line has
    proved to be a result: a file that is not ours is refused untouched."""
    if not os.path.exists(path):
        return []
    with open(path, "rb+") as handle:
        data = handle.read()
        whole = data[: data.rfind(b"\n") + 1]
        results = []
        for number, line in enumerate(whole.split(b"\n")[:-1], start=1):
            try:
                result = json.loads(line)
                results.append((key(result), result))
            except (ValueError, TypeError, KeyError, AttributeError):
                raise error(BatchError, "batch", f"{path}:{number}: not a result line of an earlier run",
                            hint="resume into the output file of the same batch") from None
        if len(whole) < len(data):
            handle.truncate(len(whole))
    return results


def read_log(path: str, key: Callable[[dict[str, Any]], str] = resume_key) -> dict[str, dict[str, Any]]:
    """The results an earlier run wrote to `path`, by `key` (see `_results`)."""
    return dict(_results(path, key))


class Pending:
    """Which input lines still need a result, given what an earlier run wrote.  Keys are counted,
    so that of two lines with the same id the second is done only once its own result is there."""

    def __init__(self, done: Counter[str] | None = None) -> None:
        self.done = done or Counter()
        self.seen: Counter[str] = Counter()

    def __call__(self, key: str) -> bool:
        self.seen[key] += 1
        return self.seen[key] > self.done[key]


@contextmanager
def appending(path: str, inputs: str) -> Iterator[tuple[TextIO, Pending]]:
    """The output file of a resumable batch, open to append, and what it still lacks.

    It is checked before anything is written (not the input file, only result lines) and locked
    while written, so that two runs never answer the same lines into one file.  Raises OSError
    when it cannot be opened, `BatchError` when it must not be.
    """
    if inputs != "-" and os.path.exists(path) and os.path.samefile(path, inputs):
        raise error(BatchError, "batch", f"{path}: the output file is the input file",
                    hint="write the results to another file")
    with open(path, "a", encoding="utf-8") as out:
        try:
            fcntl.flock(out, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise error(BatchError, "batch", f"{path}: another run is writing to it",
                        hint="wait for it to end, or write elsewhere") from None
        yield out, Pending(Counter(key for key, _ in _results(path, resume_key)))


@contextmanager
def writing(path: str | None, inputs: str) -> Iterator[tuple[TextIO, Pending]]:
    """Where a batch writes its results: the file `path`, resumed (`appending`), or standard
    output."""
    if path is None:
        yield sys.stdout, Pending()
        return
    with appending(path, inputs) as opened:
        yield opened


def read_questions(data: bytes, path: str, limit: int | None = None) -> list[dict[str, Any]]:
    """Question records from a GQA question file (a JSON object by id, or a list) or JSON lines.

    A record without an id gets its place as ``input_line``, which keys its result for resuming;
    an entry that is no record (a JSON line that is not UTF-8, not JSON or not an object) becomes
    ``{"input_line", "problem"}``, so that it costs only its own result.
    """
    try:
        whole = json.loads(data.decode("utf-8-sig"))
    except ValueError:  # not one JSON document (nor UTF-8): JSON lines
        lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        entries = [(number, _json_line(line)) for number, line in enumerate(lines, start=1)
                   if line.strip()]
    else:
        if not isinstance(whole, dict | list):
            raise error(QlangError, "input", f"{path}: expected question records with 'id' and 'question'")
        entries = ([(n, {"id": k, **v} if isinstance(v, dict) else v)
                    for n, (k, v) in enumerate(whole.items(), start=1)]
                   if isinstance(whole, dict) else list(enumerate(whole, start=1)))
    return [_question_record(number, entry) for number, entry in entries[:limit]]


def _json_line(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError as exc:
        return f"not JSON: {exc}"


def _question_record(number: int, entry: object) -> dict[str, Any]:
    if not isinstance(entry, dict):
        why = entry if isinstance(entry, str) else "not a question record"
        return {"input_line": number, "problem": f"entry {number}: {why}"}
    return entry if entry.get("id") is not None else {**entry, "input_line": number}
