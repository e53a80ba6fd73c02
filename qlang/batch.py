"""JSON-lines batches: one program per line, every line answered, none lost, resumable.

A line is a JSON object with an ``id`` and either ``program`` (a string in any syntax) or
``semantic`` (a GQA operation list); a whole GQA question record works too (its ``semantic``).
A line that cannot be read becomes an error record that keeps the line number, so one bad
line never stops a batch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from qlang.api import parse
from qlang.errors import Diagnostic, QlangError, Source, error
from qlang.ir import Node
from qlang.syntax import gqa


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


def read_records(lines: Iterable[str], syntax: str | None = None) -> Iterator[Record]:
    for number, line in enumerate(lines, start=1):
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


def resume_key(result: dict[str, Any]) -> str:
    """What identifies a line across runs: its id, or its input line when it has none."""
    return json.dumps(result["id"]) if result.get("id") is not None else f"line {result.get('input_line')}"


def read_log(path: str, key: Callable[[dict[str, Any]], str] = resume_key) -> dict[str, dict[str, Any]]:
    """The results an earlier run wrote to `path`, by `key`; drops a torn last line (the run was
    killed while writing it) so that it is redone."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)
            data = data[: data.rfind(b"\n") + 1]
    results = {}
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        try:
            result = json.loads(line)
            results[key(result)] = result
        except (json.JSONDecodeError, TypeError, KeyError, AttributeError):
            raise error(BatchError, "batch", f"{path}:{number}: not a result line of an earlier run",
                        hint="resume into the output file of the same batch") from None
    return results


def finished(path: str) -> set[str]:
    """The keys an earlier run already wrote to `path`."""
    return set(read_log(path))
