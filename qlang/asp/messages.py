"""clingo's log messages: kept per Control, and read as located diagnostics
(``<block>:3:7-9: error: ...`` -> (text, span)) to say what clingo rejected."""

from __future__ import annotations

import re

import clingo

from qlang.asp.outcome import SolveError
from qlang.errors import Span, error

_LOCATION = re.compile(r"<block>:(?P<line>\d+):(?P<column>\d+)(-(?P<end>\d+))?:\s*(error:)?")


def located(message: str) -> tuple[str, Span | None]:
    """The message without clingo's location prefix, and that location as a span."""
    where = _LOCATION.match(message.strip())
    if where is None:
        return message.strip(), None
    line, column = int(where["line"]), int(where["column"])
    end = int(where["end"]) if where["end"] else column + 1
    return message.strip()[where.end():].strip(), Span(line, column, line, end)


class Log:
    """The messages of one Control (`control`), but for the warnings every question's grounding
    gives (an atom no rule derives, a global variable)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def control(self) -> clingo.Control:
        """A Control that optimises, logging here."""
        return clingo.Control(["--opt-mode=opt"], logger=self.keep, message_limit=5)

    def keep(self, code: clingo.MessageCode, message: str) -> None:
        if code not in (clingo.MessageCode.AtomUndefined, clingo.MessageCode.GlobalVariable):
            self.messages.append(message.strip())

    def invalid(self, part: str) -> SolveError:
        """What clingo says is wrong with the scene (or the theory), its line and column in the
        message: the span would point into the program's source, which neither is."""
        message, span = located(self.messages[0] if self.messages else "clingo rejected it")
        if span is not None:
            message = f"line {span.line}, column {span.column}: {message}"
        return error(SolveError, "asp", f"invalid ASP in the {part}: {message}")  # type: ignore[return-value]
