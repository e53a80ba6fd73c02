"""What the Lark-based syntaxes share: grammar loading, error translation, call building.

Parsers are LALR with the transformer inlined, so no parse tree is ever built: a call is turned
into a `Node` the moment it is reduced.  The grammars in `grammars/` are the only definition of
each syntax; a `Grammar` (a grammar file and the builder its parsers run) reads every text with
two parsers built from the same grammar:

* the fast one: for flat and nested a loop of their own over the descent's tokens, for code
  the recursive descent of `qlang.syntax.descent`, for the others Lark's LALR tables run by the
  compiled `lark_cython` loop and lexer; none
  propagates positions (spans come from the tokens' own positions, which the lexer keeps
  anyway; no node ever reads Lark's `meta`);
* the reference, Lark's pure-Python parser as it always was.  It reads only texts the fast one
  refused, so every error is found, described and located by one code path, the reference's:
  an error is the same whichever parser saw the text first (tests/test_fast_parse.py holds the
  two to the same IR, spans included, on generated and fuzzed programs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import LexerThread, PatternStr

from qlang.asp_names import from_term
from qlang.errors import Diagnostic, ParseError, Source, Span, shown
from qlang.frozen import by_fields
from qlang.ir import MAX_DEPTH, Lit, Node
from qlang.jsontext import MAX_DIGITS
from qlang.paths import cache_dir, resource_dir
from qlang.syntax import descent
from qlang.syntax.descent import CallShape, Tok

try:
    import lark_cython  # type: ignore[import-untyped]

    #: Lark's plugin hooks for the compiled lexer and LALR loop, or none where it is missing.
    PLUGINS: dict[str, Any] = dict(lark_cython.plugins)
except ImportError:  # pragma: no cover - a dependency; without it the fast path is plain Lark
    PLUGINS = {}


#: The Lark transformers our grammars use; what they build varies per syntax.  Their methods
#: read tokens only through `.value`, `.type` and the four position fields, which Lark's
#: `Token` and lark_cython's share (the latter is no `str`).
Builder = Transformer[Token, Any]


@dataclass(frozen=True, eq=False)
class Grammar:
    """A grammar of `grammars/` and the builder its parsers run (one per builder: flat's is
    read two ways).  Compared by identity: each is a module's constant, and its parsers are
    cached by it on the hot path."""

    #: the file `grammars/<file>.lark`
    file: str
    builder: type[Builder]
    #: how a call-shaped grammar strings calls into a program: the descent reads it (else None,
    #: and lark_cython does)
    shape: CallShape | None = None
    #: a fast reader of the grammar's own, made from its fast parser, in place of the descent's
    reader: Callable[[Lark], Callable[[str], Any]] | None = None

    def parse(self, source: Source) -> Any:
        """Parse `source`, turning every Lark or nesting failure into a located `ParseError`.

        The fast parser reads it first; whatever it refuses (or fails on in any way) is read
        again by the reference parser, which raises the error.
        """
        try:
            return self.parse_fast(source)
        except Exception:  # the reference says what is wrong, and where
            return self.parse_reference(source)

    def parse_fast(self, source: Source) -> Any:
        """The fast parser alone: its result, or any exception where the text is not well formed."""
        text = source.text
        if text.count("(") > MAX_DEPTH:  # only then can the nesting be too deep
            _check_nesting(source)
        return _fast_reader(self)(text)

    def parse_reference(self, source: Source) -> Any:
        """Lark's pure-Python parser: the result or the located `ParseError` that defines them."""
        lark = parser(self)
        _check_nesting(source)
        try:
            return lark.parse(source.text)
        except UnexpectedInput as exc:
            raise ParseError([_describe(exc, lark, source.text)], source) from None
        except ParseError as exc:
            raise ParseError(exc.diagnostics, source) from None

    def tokens(self, text: str, strays: bool = False) -> list[Tok]:
        """The text's tokens as the grammar's terminals cut it (`descent.tokens`)."""
        return descent.tokens(fast_parser(self), text, strays)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_fields(self)  # compiled, a frozen dataclass cannot unpickle field by field


@cache
def parser(grammar: Grammar, fast: bool = False) -> Lark:
    """The reference parser (Lark's own, pure Python, positions propagated), or with `fast` the
    same grammar and builder run by lark_cython, no positions propagated.  Lark keeps the
    analysed grammar in the project's cache (checked against the grammar, options and Lark's
    version): a process that compiles one program then loads its tables instead of building
    them, 1 ms instead of about 40."""
    plugins: dict[str, Any] = {"_plugins": PLUGINS} if fast else {}
    return Lark.open(
        str(resource_dir("grammars") / f"{grammar.file}.lark"),
        parser="lalr",
        transformer=grammar.builder(),
        propagate_positions=not fast,
        maybe_placeholders=False,
        cache=_cached(f"{grammar.file}-{'fast' if fast else 'reference'}"),
        **plugins,
    )


def _cached(name: str) -> str | bool:
    """Where Lark keeps a parser's tables (False, not at all, where the cache cannot be made)."""
    folder = cache_dir("lark")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return str(folder / f"{name}.pickle")


def fast_parser(grammar: Grammar) -> Lark:
    return parser(grammar, fast=True)


@cache
def _fast_reader(grammar: Grammar) -> Callable[[str], Any]:
    """The fast reader of a grammar: its own, or the recursive descent for the call-shaped ones,
    else `cython_parse`."""
    if grammar.reader is not None:
        return grammar.reader(fast_parser(grammar))
    if grammar.shape is not None:
        return descent.reader(fast_parser(grammar), grammar.shape)
    return cython_parse(grammar)


@cache
def cython_parse(grammar: Grammar) -> Callable[[str], Any]:
    """`fast_parser(...).parse`, what it does per call that does not depend on the text done
    once: the lexer, the LALR loop and the start symbol looked up and bound."""
    lark = fast_parser(grammar)
    frontend = lark.parser
    thread = PLUGINS.get("LexerThread", LexerThread).from_text
    lexer, run, (start,) = frontend.lexer, frontend.parser.parse, lark.options.start
    return lambda text: run(thread(lexer, text), start)


def span(first: Token | Tok, last: Token | Tok | None = None) -> Span:
    """The span of a token, or from one token to another (parsers make one per node and word:
    built as the tuple it is, without the named tuple's Python-level constructor)."""
    last = last or first
    return _new_tuple(Span, (first.line, first.column, last.end_line, last.end_column))


_new_tuple = tuple.__new__


_PARENS = re.compile(r"[()]")


def _check_nesting(source: Source) -> None:
    """Every parenthesis counts, quoted or not: a cheap guard that runs before any parser."""
    text, depth = source.text, 0
    for paren in _PARENS.finditer(text):
        depth += 1 if paren.group() == "(" else -1
        if depth > MAX_DEPTH:
            start = paren.start()
            line, column = text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
            at = Span(line, column, line, column + 1)
            raise ParseError([Diagnostic("syntax", f"nesting deeper than {MAX_DEPTH}", at)], source)


def _token_name(name: str, lark: Lark) -> str:
    try:
        pattern = lark.get_terminal(name).pattern
    except KeyError:
        return name.lower()
    if isinstance(pattern, PatternStr):
        return repr(pattern.value)
    return {"NAME": "a name", "STRING": "a quoted string", "INT": "a step number",
            "VARIABLE": "a variable"}.get(
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


def step_number(token: Token) -> int:
    """An INT token's number, of at most `MAX_DIGITS` digits (Python's int refuses 4,300)."""
    if len(token.value) > MAX_DIGITS:
        raise ParseError([Diagnostic("syntax", f"a step number of more than {MAX_DIGITS} digits",
                                     span(token))])
    return int(token.value)


def literal(token: Token) -> Lit:
    """A NAME or STRING token as the word it spells."""
    return Lit(from_term(token.value), span(token))


class CallBuilder(Builder):
    """Builds nodes for `call` and `atom`, the rules nested ASP and code-like share."""

    def call(self, children: list[Any]) -> Node:
        name, *args, close = children
        return Node(name.value, tuple(args), span(name, close))

    def atom(self, children: list[Token]) -> Lit:
        return literal(children[0])

