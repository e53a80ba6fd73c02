"""What the Lark-based syntaxes share: grammar loading, error translation, call building.

Parsers are LALR with the transformer inlined, so no parse tree is ever built: a call is turned
into a `Node` the moment it is reduced.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from qlang.asp_names import from_term
from qlang.errors import Diagnostic, ParseError, Source, Span, shown
from qlang.ir import MAX_DEPTH, Lit, Node


def resource_dir(name: str) -> Path:
    """A top-level data folder (`grammars`, `theory`): in the wheel, or beside the package."""
    package = Path(__file__).resolve().parent.parent
    installed = package / name
    return installed if installed.is_dir() else package.parent / name


#: The Lark transformers our grammars use; what they build varies per syntax.
Builder = Transformer[Token, Any]


@cache
def parser(grammar: str, transformer: type[Builder]) -> Lark:
    return Lark.open(
        str(resource_dir("grammars") / f"{grammar}.lark"),
        parser="lalr",
        transformer=transformer(),
        propagate_positions=True,
        maybe_placeholders=False,
    )


def span(first: Token, last: Token | None = None) -> Span:
    """The span of a token, or from one token to another."""
    last = last or first
    assert first.line and first.column and last.end_line and last.end_column, "positions are on"
    return Span(first.line, first.column, last.end_line, last.end_column)


def parse(grammar: str, transformer: type[Builder], source: Source) -> Any:
    """Parse `source`, turning every Lark or nesting failure into a located `ParseError`."""
    lark = parser(grammar, transformer)
    _check_nesting(source)
    try:
        return lark.parse(source.text)
    except UnexpectedInput as exc:
        raise ParseError([_describe(exc, lark, source.text)], source) from None
    except ParseError as exc:
        raise ParseError(exc.diagnostics, source) from None


def _check_nesting(source: Source) -> None:
    depth = 0
    line, column = 1, 0
    for char in source.text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        depth += (char == "(") - (char == ")")
        if depth > MAX_DEPTH:
            at = Span(line, column, line, column + 1)
            raise ParseError([Diagnostic("syntax", f"nesting deeper than {MAX_DEPTH}", at)], source)


def _token_name(name: str, lark: Lark) -> str:
    try:
        pattern = lark.get_terminal(name).pattern
    except KeyError:
        return name.lower()
    if isinstance(pattern, PatternStr):
        return repr(pattern.value)
    return {"NAME": "a name", "STRING": "a quoted string", "INT": "a step number"}.get(
        name, name.lower())


def _describe(exc: UnexpectedInput, lark: Lark, text: str) -> Diagnostic:
    expected: set[str] = set()
    if isinstance(exc, UnexpectedToken | UnexpectedEOF):
        expected = set(exc.expected)
    elif isinstance(exc, UnexpectedCharacters):
        expected = set(exc.allowed or ())
    wanted = ", ".join(sorted(_token_name(t, lark) for t in expected if t != "$END"))
    if "$END" in expected:
        wanted = f"{wanted}, or the end" if wanted else "the end"
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        found = f"unexpected {shown(exc.token.value)}"
    elif isinstance(exc, UnexpectedCharacters):
        found = f"unexpected character {exc.char!r}"
    else:
        found = "unexpected end of input"
    line, column = _end_of(text) if found == "unexpected end of input" else (exc.line, exc.column)
    line, column = max(line, 1), max(column, 1)
    return Diagnostic("syntax", f"{found}; expected {wanted}" if wanted else found,
                      Span(line, column, line, column + 1))


def _end_of(text: str) -> tuple[int, int]:
    """The position just after the last non-blank character."""
    body = text.rstrip()
    line = body.count("\n") + 1
    return line, len(body) - (body.rfind("\n") + 1) + 1


def literal(token: Token) -> Lit:
    """A NAME or STRING token as the word it spells."""
    return Lit(from_term(str(token)), span(token))


class CallBuilder(Builder):
    """Builds nodes for `call` and `atom`, the rules nested ASP and code-like share."""

    def call(self, children: list[Any]) -> Node:
        name, *args, close = children
        return Node(str(name), tuple(args), span(name, close))

    def atom(self, children: list[Token]) -> Lit:
        return literal(children[0])

