"""clingo's log messages as located diagnostics: ``<block>:3:7-9: error: ...`` -> (text, span)."""

from __future__ import annotations

import re

from qlang.errors import Span

_LOCATION = re.compile(r"<block>:(?P<line>\d+):(?P<column>\d+)(-(?P<end>\d+))?:\s*(error:)?")


def located(message: str) -> tuple[str, Span | None]:
    """The message without clingo's location prefix, and that location as a span."""
    where = _LOCATION.match(message.strip())
    if where is None:
        return message.strip(), None
    line, column = int(where["line"]), int(where["column"])
    end = int(where["end"]) if where["end"] else column + 1
    return message.strip()[where.end():].strip(), Span(line, column, line, end)
