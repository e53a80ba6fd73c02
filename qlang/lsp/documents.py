"""A document as the server sees it: its text, language and positions, and what is read of it.

Positions cross the protocol in the client's units (UTF-16 code units unless it offered others);
qlang's spans count characters from 1, lines split at ``\\n`` alone, as the parsers count them.
Units are counted by encoding the text before a position (pygls's codec loops in Python over
every character, too slow for the long lines of a nested program).  Each analysis (the program,
the calls) is computed on first use and kept with the text it was made from: a request after a
change reads a new `Document`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from qlang.errors import Diagnostic, QlangError, Source, Span
from qlang.ir import Node
from qlang.lsp import calls, languages
from qlang.lsp.calls import Calls, Point
from qlang.syntax import SYNTAXES
from qlang.syntax.descent import Tok

#: The most characters of a document the server reads: far more than any program (the longest
#: real one has under 1,000; a 200-step program 5,000), few enough that a hostile one is read in
#: well under a second (the checker's did-you-mean costs milliseconds per unknown word).
LIVE = 256_000

#: Each position encoding's Python codec and its bytes per unit.
_ENCODINGS = {types.PositionEncodingKind.Utf8.value: ("utf-8", 1),
              types.PositionEncodingKind.Utf16.value: ("utf-16-le", 2),
              types.PositionEncodingKind.Utf32.value: ("utf-32-le", 4)}


@dataclass(eq=False)
class Document:
    uri: str
    text: str
    version: int | None
    codec: PositionCodec

    @cached_property
    def language(self) -> str:
        return languages.language_of(self.uri, self.text)

    @cached_property
    def source(self) -> Source:
        """The text as the parsers read it, named by its path, as the command line names files."""
        return Source(self.text, to_fs_path(self.uri) or self.uri)

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def too_large(self) -> QlangError | None:
        """Why the text is not read (past `LIVE` characters), or None."""
        if len(self.text) <= LIVE:
            return None
        message = (f"{len(self.text):,} characters: the server reads at most {LIVE:,} as you type "
                   "(`qlangc check` reads the file)")
        return QlangError([Diagnostic("limit", message, Span(1, 1, 1, 2), warning=True)], self.source)

    @cached_property
    def program(self) -> Node | QlangError:
        """The program, or the error that says why the text is none (a program syntax only)."""
        if self.too_large is not None:
            return self.too_large
        try:
            return SYNTAXES[self.language].parse(self.source)
        except QlangError as exc:
            return exc

    @cached_property
    def calls(self) -> Calls | None:
        """The calls as written (None outside the call-shaped syntaxes, or past the limit)."""
        syntax = SYNTAXES.get(self.language)
        if syntax is None or syntax.calls is None or self.too_large is not None:
            return None
        return calls.read(self.language, self.text)

    # --- positions -------------------------------------------------------------------------

    def point(self, position: types.Position) -> Point:
        """A client's position as a 1-based line and column."""
        index = min(max(position.line, 0), len(self.lines) - 1)
        text = self.lines[index]
        if text.isascii():
            return index + 1, min(max(position.character, 0), len(text)) + 1
        at = self.codec.position_from_client_units([text], types.Position(0, position.character))
        return index + 1, at.character + 1

    def position(self, line: int, column: int) -> types.Position:
        """A 1-based line and column (clamped to the text) in the client's units."""
        index = min(max(line, 1), len(self.lines)) - 1
        return types.Position(index, self.units(self.lines[index][:max(column, 1) - 1]))

    @cached_property
    def _line_offsets(self) -> list[int]:
        offsets = [0]
        for line in self.lines[:-1]:
            offsets.append(offsets[-1] + len(line) + 1)
        return offsets

    def offset(self, line: int, column: int) -> int:
        """The index in the text of a 1-based line and column."""
        index = min(max(line, 1), len(self.lines)) - 1
        return self._line_offsets[index] + min(max(column, 1) - 1, len(self.lines[index]))

    def units(self, text: str) -> int:
        """The length of `text` in the client's units."""
        if text.isascii():
            return len(text)
        encoding = _ENCODINGS.get(self.codec.encoding or "", ("utf-16-le", 2))
        return len(text.encode(encoding[0], "surrogatepass")) // encoding[1]

    def range(self, span: Span | None) -> types.Range:
        """A span's range; no span: the first character."""
        if span is None:
            return types.Range(self.position(1, 1), self.position(1, 2))
        return types.Range(self.position(span.line, span.column),
                           self.position(span.end_line, span.end_column))

    def token_range(self, token: Tok) -> types.Range:
        return types.Range(self.position(token.line, token.column),
                           self.position(token.end_line, token.end_column))

    @property
    def whole(self) -> types.Range:
        return types.Range(types.Position(0, 0), self.position(len(self.lines), len(self.lines[-1]) + 1))
