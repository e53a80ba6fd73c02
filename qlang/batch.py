"""JSON-lines batch input: one program per line, every line answered, none lost.

A line is a JSON object with an ``id`` and either ``program`` (a string in any syntax) or
``semantic`` (a GQA operation list); a whole GQA question record works too (its ``semantic``).
A line that cannot be read becomes an error record that keeps the line number, so one bad
line never stops a batch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from qlang.api import parse
from qlang.errors import Diagnostic, QlangError, Source
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
