"""One error root that knows where it is.

Every problem qlang reports is a `Diagnostic` (data: kind, message, location, hint), so the CLI,
the JSON-lines batch mode and the LLM repair loop all read the same fields.  A `QlangError`
carries one or more diagnostics plus the source they point into, and renders them as
``file:line:col: error: message`` with the source line and a caret, or as ``file: error: message``
where an error is about a whole file (`error(..., path=...)`): the file first, as gcc prints it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple


class Span(NamedTuple):
    """A 1-based region of source text (a named tuple: parsers make one per node and word)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Source:
    text: str
    name: str = "<input>"
    #: the number of the text's first line: a line read alone from a long stream is its own source
    first_line: int = 1


@dataclass(frozen=True, slots=True)
class Diagnostic:
    kind: str
    message: str
    span: Span | None = None
    hint: str | None = None
    warning: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "message": self.full_message,
            "line": self.span.line if self.span else None,
            "column": self.span.column if self.span else None,
        }

    @property
    def full_message(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message

    def render(self, source: Source | None) -> str:
        name = source.name if source else "<input>"
        severity = "warning" if self.warning else "error"
        if self.span is None:  # about a whole file; or about no input at all (a setting): no name
            return f"{name + ': ' if source else ''}{severity}: {printable(self.full_message)}"
        head = f"{name}:{self.span.line}:{self.span.column}: {severity}: {printable(self.full_message)}"
        if source is None:
            return head
        lines = _lines(source.text)
        index = self.span.line - source.first_line
        if not 0 <= index < len(lines) or not lines[index]:  # no text at hand, nothing to point at
            return head
        text, column = _window(lines[index], self.span.column)
        width = 1
        if self.span.end_line == self.span.line:
            width = min(max(1, self.span.end_column - self.span.column), len(text) - column + 2)
        caret = " " * (column - 1) + "^" + "~" * (width - 1)
        return f"{head}\n  {text}\n  {caret}"


@lru_cache(maxsize=4)
def _lines(text: str) -> list[str]:
    """A source's lines, split once for all its diagnostics (parsers count lines by "\n" alone)."""
    return text.split("\n")


#: The most characters of a source line an error shows, around the column it points at.
LINE_WIDTH = 100


def _window(line: str, column: int) -> tuple[str, int]:
    """The part of a source line an error shows, one printable character per character (so the
    caret stays under its column), and the column within it."""
    shown = "".join(map(_glyph, line))
    if len(shown) <= LINE_WIDTH:
        return shown, column
    start = max(0, min(column - 1 - LINE_WIDTH // 2, len(shown) - LINE_WIDTH))
    head, tail = ("…" if start else ""), ("…" if start + LINE_WIDTH < len(shown) else "")
    return head + shown[start:start + LINE_WIDTH] + tail, column - start + len(head)


def _glyph(c: str) -> str:
    """A character of a source line as an error shows it: itself where printable, a control
    character as its Unicode picture (NUL as ␀, a tab as ␉: what the byte is, in one column),
    anything else as �."""
    if c.isprintable():
        return c
    if c < " ":
        return chr(0x2400 + ord(c))
    return "\N{SYMBOL FOR DELETE}" if c == "\x7f" else "\N{REPLACEMENT CHARACTER}"


def printable(text: str) -> str:
    """Text safe to print on a terminal: control characters written as escapes."""
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in text)


#: The most characters of a word a message quotes whole (`shown`).
SHOWN = 40


def shown(word: str, limit: int = SHOWN) -> str:
    """A word quoted for a message, its middle cut out when it is long.

    >>> shown("x" * 1000, 10)
    "'xxxxx…xxxxx' (1000 characters)"
    """
    if len(word) <= limit:
        return repr(word)
    half = limit // 2
    return f"{word[:half] + '…' + word[-half:]!r} ({len(word)} characters)"


@dataclass
class QlangError(Exception):
    """Root of every error qlang raises on bad input."""

    diagnostics: list[Diagnostic]
    source: Source | None = field(default=None)

    def __post_init__(self) -> None:
        # rendered when shown, not when raised: a file of thousands of errors renders once, and
        # an error caught and handled (a cascade's fallback, a batch line) is never rendered;
        # the fields as args, so that an unpickled error (from a batch worker) is the same error
        super().__init__(self.diagnostics, self.source)

    @property
    def kind(self) -> str:
        return self.diagnostics[0].kind

    def render(self) -> str:
        return "\n".join(d.render(self.source) for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render()


class ParseError(QlangError):
    """The text is not a program of the syntax (bad tokens, references or variables)."""


class CheckError(QlangError):
    """The program parses but is ill-typed or names unknown vocabulary."""


class UnsupportedOperation(QlangError):
    """The program uses something the target form has no sound way to express."""


def error(cls: type[QlangError], kind: str, message: str, span: Span | None = None,
          source: Source | None = None, hint: str | None = None, *,
          path: str | os.PathLike[str] | None = None) -> QlangError:
    """A single-diagnostic error, the common case.  `path`, instead of a source: the file the
    error is about as a whole (unreadable, too large, of the wrong kind), whose text is not at
    hand; it renders as ``PATH: error: message``, never with the path inside the message."""
    if path is not None:
        source = Source("", os.fspath(path))
    return cls([Diagnostic(kind, message, span, hint)], source)
