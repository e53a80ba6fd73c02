"""JSON-lines batches: one program per line, every line answered, none lost, resumable.

A line is a JSON object with an ``id`` and either ``program`` (a string in any syntax) or
``semantic`` (a GQA operation list); a whole GQA question record works too (its ``semantic``).
A line that cannot be read (not UTF-8, not JSON, no program, or one whose reading fails in any
way) becomes an error record that keeps the line number, so one bad line never stops a batch.
Lines are split on "\\n" alone (see `qlang.console.read_lines`).
"""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import signal
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from qlang.api import parse
from qlang.errors import Diagnostic, QlangError, Source, error
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


def read_records(lines: Iterable[bytes], syntax: str | None = None, start: int = 1) -> Iterator[Record]:
    """The records of input lines, numbered from `start`."""
    for number, raw in enumerate(lines, start=start):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            reason = f"{exc.reason} at byte {exc.start}"
            yield Record(None, number, error=_bad_line(f"line {number} is not UTF-8 text ({reason})"))
            continue
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            yield Record(None, number, error=_bad_line(f"line {number} is not JSON: {reason}"))
            continue
        if not isinstance(data, dict):
            yield Record(None, number, error=_bad_line(f"line {number} is not a JSON object"))
            continue
        record = Record(data.get("id", data.get("question_id")), number, data)
        try:
            record.root, record.source = _program(data, syntax, number)
        except QlangError as exc:
            record.error = exc
        except Exception as exc:  # one line's failure must not end the batch
            record.error = internal_error(exc)
        yield record


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


class BatchError(QlangError):
    """The batch cannot go on (a worker died, or the output file is not ours); what was written
    stays, for a resumed run."""


# ----- answering lines in parallel (compile, check) --------------------------------------------

#: What a batch does with one well-read line: its result object.
Handler = Callable[[Record], dict[str, object]]

#: Lines one worker task answers: enough that handing them over costs little next to parsing
#: them, few enough that results stream out and the cores stay evenly busy.
CHUNK = 200


def cores() -> int:
    """The cores this process may run on (the default number of jobs)."""
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


def answer_chunk(lines: Sequence[bytes], handle: Handler, syntax: str | None = None,
                 start: int = 1) -> tuple[str, bool]:
    """The result lines of input lines numbered from `start`, as one text, and whether all
    succeeded."""
    results, ok = [], True
    for record in read_records(lines, syntax, start):
        result = answer(record, handle)
        ok = ok and "error" not in result and not result.get("errors")
        results.append(json.dumps(result) + "\n")
    return "".join(results), ok


def run(lines: Sequence[bytes], handle: Handler, out: TextIO, *, syntax: str | None = None,
        jobs: int = 1, chunk: int | None = None) -> bool:
    """Answer every line, results written to `out` in input order, chunk by chunk as they come;
    True if every line succeeded.  With `jobs` > 1 chunks are answered by that many forked
    worker processes (`handle` need not pickle: they inherit it), `chunk` (default `CHUNK`) lines
    a task."""
    chunk = chunk or CHUNK
    tasks = ((start, lines[start - 1:start - 1 + chunk]) for start in range(1, len(lines) + 1, chunk))
    ok = True
    for text, chunk_ok in _answered(tasks, handle, syntax, min(jobs, -(-len(lines) // chunk))):
        ok = ok and chunk_ok
        out.write(text)
        out.flush()
    return ok


_Task = tuple[int, Sequence[bytes]]
#: The handler and syntax of the batch being run, set before the workers fork.
_JOB: tuple[Handler, str | None] | None = None


def _answered(tasks: Iterable[_Task], handle: Handler, syntax: str | None,
              jobs: int) -> Iterator[tuple[str, bool]]:
    if jobs <= 1:
        for start, lines in tasks:
            yield answer_chunk(lines, handle, syntax, start)
        return
    global _JOB
    _JOB = (handle, syntax)
    load([syntax] if syntax else SYNTAXES)
    pool = ProcessPoolExecutor(jobs, multiprocessing.get_context("fork"), _quiet_worker)
    try:
        window: deque[Future[tuple[str, bool]]] = deque()
        for task in tasks:
            window.append(pool.submit(_answer_task, task))
            if len(window) > 2 * jobs:  # a few tasks ahead per worker, results in input order
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
    except BrokenProcessPool:
        raise error(BatchError, "batch", "a worker process died", hint="the results so far are "
                    "written; run the remaining lines again, or with --jobs 1") from None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        _JOB = None


def _quiet_worker() -> None:
    """A worker leaves Ctrl-C to the parent, which ends the pool quietly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _answer_task(task: _Task) -> tuple[str, bool]:
    assert _JOB is not None, "workers are forked after the job is set"
    start, lines = task
    return answer_chunk(lines, _JOB[0], _JOB[1], start)


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
