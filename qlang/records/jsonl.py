"""JSON lines, read: split on "\\n" alone, each line read on its own, so that a line that is not
UTF-8, not JSON or no JSON object costs only itself (a `JsonLine` says why)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from qlang import jsontext, limits
from qlang.errors import Diagnostic
from qlang.jsontext import split_lines
from qlang.limits import TooLarge


@dataclass(frozen=True, slots=True)
class JsonLine:
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


def read_line(number: int, raw: bytes, bound: int | None = None) -> JsonLine | None:
    """One line, read; None for a blank one (one longer than `limits.LINE` is not decoded;
    `bound`: that limit in bytes, read once by a caller that reads many lines)."""
    if len(raw) > (limits.LINE.bytes if bound is None else bound):
        return JsonLine(number, error=TooLarge([Diagnostic("limit", f"longer than {limits.LINE.bound()}")]))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return JsonLine(number, error=exc)
    if not text.strip():
        return None
    try:
        return JsonLine(number, jsontext.loads(text))
    except json.JSONDecodeError as exc:  # jsontext's bounds included: no RecursionError
        return JsonLine(number, error=exc)


def json_lines(data: bytes) -> Iterator[JsonLine]:
    """The lines of JSON-lines `data` (`split_lines`) that are not blank, each read on its own."""
    bound = limits.LINE.bytes
    for number, raw in enumerate(split_lines(data), start=1):
        if (line := read_line(number, raw, bound)) is not None:
            yield line


def resume_key(result: dict[str, Any]) -> str:
    """What identifies an input across runs: its id, or its input line when it has none."""
    return json.dumps(result["id"]) if result.get("id") is not None else f"line {result.get('input_line')}"
