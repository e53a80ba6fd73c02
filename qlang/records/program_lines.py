"""Program lines (compile, check, solve): each a JSON object with an ``id`` and either
``program`` (a string in any syntax) or ``semantic`` (a GQA operation list); a whole GQA
question record works too (its ``semantic``).  A line that cannot be read (not UTF-8, not
JSON, no program, or one whose reading fails in any way) becomes an error record that keeps the
line number.  `run` answers a file of them (compile, check) in worker processes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from qlang import limits
from qlang.api import parse_source
from qlang.errors import Diagnostic, QlangError, Source
from qlang.executors import Executor, Local, chunks
from qlang.ir import Node
from qlang.records.batch import attempt, run_batch
from qlang.records.jsonl import JsonLine, read_line, resume_key
from qlang.records.output import Output, Printed, Result, printed
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
    bound = limits.LINE.bytes
    for number, raw in lines:
        if (line := read_line(number, raw, bound)) is not None:
            yield _record(line, syntax)


def _record(line: JsonLine, syntax: str | None) -> Record:
    data = line.data
    if data is None:
        return Record(None, line.number, error=_bad_line(f"line {line.number} is {line.problem()}"))
    record_id = data.get("id", data.get("question_id"))

    def read() -> Record:
        root, source = _program(data, syntax, line.number)
        return Record(record_id, line.number, data, root, source=source)

    return attempt(read, lambda exc: Record(record_id, line.number, data, error=exc))


def _program(data: dict[str, Any], syntax: str | None, number: int) -> tuple[Node, Source | None]:
    if isinstance(data.get("program"), str):
        source = Source(data["program"], f"<line {number}>")
        return parse_source(source, syntax), source
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
