"""A knowledge file read line by line, within bounds, each line knowing where it is.

Knowledge files are large (ConceptNet's assertions are 34 million lines, 10 GB unpacked), so
they are streamed, never read whole: a line holds at most `MAX_LINE` bytes (so ``/dev/zero``
or a file without newlines fails at once), the whole file at most `limits.KNOWLEDGE` once
decompressed (so a gzip bomb cannot fill the disk through the index) in at most
`limits.KNOWLEDGE_LINES` lines, and a line that is not UTF-8 is an error at its line and
column.  A gzip file (ConceptNet ships ``.csv.gz``) is read through as it is, and refused
once it has expanded past `RATIO` times what was read of it (beyond the first `UNJUDGED`
bytes): ConceptNet's assertions expand about 20 times, a gzip bomb about a thousand, and would
take the minutes its `limits.KNOWLEDGE` bytes take to read.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from qlang.errors import Diagnostic, Source, Span, error
from qlang.knowledge.triples import KnowledgeError
from qlang.limits import KNOWLEDGE, KNOWLEDGE_LINES, TooLarge

#: The most bytes of one line (ConceptNet's longest are a few kilobytes).
MAX_LINE = 1 << 20
#: The most a gzip file may expand (decompressed bytes per compressed byte read).
RATIO = 200
#: Decompressed bytes read before the expansion is judged (a small file may expand any amount).
UNJUDGED = 1 << 20
_GZIP = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    number: int
    name: str

    def error(self, message: str, column: int = 1, width: int = 1, hint: str | None = None) -> KnowledgeError:
        """The error of something wrong at `column` of this line (shown with a caret)."""
        span = Span(self.number, column, self.number, column + width)
        return KnowledgeError([Diagnostic("knowledge", message, span, hint)],
                              Source(self.text, self.name, self.number))

    def field_error(self, fields: list[str], number: int, message: str, *, at: int | None = None,
                    hint: str | None = None) -> KnowledgeError:
        """The error of field `number` (from 0) of this line's tab-separated `fields`: at its
        character `at`, or the whole field."""
        column = sum(len(field) + 1 for field in fields[:number]) + 1
        if at is not None:
            return self.error(message, column + at, 1, hint)
        return self.error(message, column, max(1, len(fields[number])), hint)


class _Counted:
    """A stream that counts the bytes read from it (what a gzip file has taken of its file)."""

    def __init__(self, stream: io.BufferedReader[Any]) -> None:
        self.stream, self.count = stream, 0

    def read(self, size: int = -1, /) -> bytes:
        data = self.stream.read(size)
        self.count += len(data)
        return data

    def seek(self, offset: int, /) -> int:
        """What gzip would rewind with (reading forward, it never does)."""
        return self.stream.seek(offset)


@dataclass(frozen=True, slots=True)
class Decompressed:
    """A knowledge file's bytes, read through gzip when it is gzip (`read` counts what that
    took of the file; None: not gzip)."""

    stream: io.BufferedIOBase
    read: _Counted | None = None


def decompressed(stream: io.BufferedReader[Any]) -> Decompressed:
    """`stream`, read through gzip when it is gzip."""
    if stream.peek(2)[:2] != _GZIP:
        return Decompressed(stream)
    counted = _Counted(stream)
    return Decompressed(gzip.GzipFile(fileobj=counted, mode="rb"), counted)


def lines(file: Decompressed, name: str) -> Iterator[Line]:
    """The lines of `file` (without their line ends), numbered from 1; raises a located
    `KnowledgeError` at a line that is too long or not UTF-8, or where the stream cannot be
    read (a gzip file cut short), and `TooLarge` past `KNOWLEDGE` or a gzip file past `RATIO`."""
    stream, most, size, number = file.stream, KNOWLEDGE.bytes, 0, 0
    most_lines = KNOWLEDGE_LINES.most
    while True:
        number += 1
        try:
            raw = stream.readline(MAX_LINE + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise Line("", number, name).error(f"cannot be read: {exc}") from None
        if not raw:
            return
        if number > most_lines:
            raise error(TooLarge, "limit", f"too many lines: {KNOWLEDGE_LINES.bound()}", path=name)
        size += len(raw)
        if size > most:
            raise KNOWLEDGE.exceeded(name)
        if file.read is not None and size > UNJUDGED and size > RATIO * file.read.count:
            raise error(TooLarge, "limit", f"expands more than {RATIO} times, as a gzip bomb does (a file "
                        f"unpacked first is read within {KNOWLEDGE.bound()})", path=name)
        content = raw.removesuffix(b"\n").removesuffix(b"\r")
        if len(content) > MAX_LINE:  # shown without its text: the length is what is wrong
            raise Line("", number, name).error(f"a line longer than {MAX_LINE:,} bytes")
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            column = len(content[:exc.start].decode("utf-8", "replace")) + 1
            raise Line(content.decode("utf-8", "replace"), number, name).error(
                f"not UTF-8 text ({exc.reason})", column) from None
        yield Line(text.removeprefix("\ufeff") if number == 1 else text, number, name)
