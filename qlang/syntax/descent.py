"""The fast path for the call-shaped grammars (nested, code, flat): one regular expression built
from the grammar's own terminals, and a recursive descent over the few rules those grammars have,
calling the very transformer methods Lark's parser calls, with the children Lark would pass.
What differs between those grammars is data, their `CallShape`.

It reads well-formed programs only: on anything else (a character no terminal matches, a token
the rule does not allow, a builder's error) it raises, and `Grammar.parse` hands the text to
Lark's parser, which finds, describes and locates the error.  So the grammar stays the one
definition of each syntax: the tokens come from it, and tests/test_fast_parse.py holds this
reader to Lark's on generated, mutated and real programs (same results, spans included; it
accepts exactly what Lark accepts).

The editor reads calls too (`qlang.lsp.calls`), from the same tokens and the same `CallShape`,
but with a reader of its own: it must read any text being written, never fail, and keep every
comma and parenthesis where it stands, while this one must refuse all but whole programs and
build nothing but the program, as fast as it can (it is most of the compile pipeline's time).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from lark import Lark
from lark.lexer import PatternStr

from qlang.frozen import by_fields


class Tok:
    """A token with the fields the transformers read (Lark's `Token` has them too); compiled, a
    native class, built and read without a Python-level call."""

    __slots__ = ("column", "end_column", "end_line", "line", "type", "value")

    def __init__(self, type: str, value: str, line: int, column: int, end_line: int,
                 end_column: int) -> None:
        self.type = type
        self.value = value
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column


@dataclass(frozen=True, slots=True)
class CallShape:
    """How a call-shaped syntax strings calls into a program, beyond what its tokens say."""

    #: how many statements a program has, at least and at most (None: any number), as the
    #: grammar's `start` rule says
    statements: tuple[int, int | None]
    #: the grammar rule (and builder method) of a statement's call; a call inside a call is a
    #: `call` (a builder without one reads no nested calls)
    rule: str = "call"
    #: the literal token between a variable and the call it names (code-like's ``=``)
    assign: str | None = None
    #: the literal token that ends every statement (flat's ``.``)
    end: str | None = None
    #: a statement's first argument is its own step number (flat), which the IR's positions
    #: do not count
    numbered: bool = False

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_fields(self)  # compiled, a frozen dataclass cannot unpickle field by field


class Refused(Exception):
    """Not a well-formed program of the grammar (Lark's parser will say why)."""


#: The name of any character no terminal matches: every character is in some token.
STRAY = "_STRAY"
#: The most distinct token texts a grammar's lexer remembers the terminal of.
_KNOWN = 50_000


class Lexer:
    """A grammar's terminals as one pattern, in the order Lark's lexer tries them, then any other
    character.  `findall` cuts a text into tokens in C; each token's terminal is the first whose
    pattern matches all of it (so the one the alternation chose; none of these grammars' patterns
    looks around), remembered by the token's text."""

    def __init__(self, lark: Lark) -> None:
        terminals = sorted(lark.terminals, key=lambda t: (-t.priority, -t.pattern.max_width,
                                                          -len(t.pattern.value), t.name))
        regexps = [t.pattern.to_regexp() for t in terminals]
        assert not any(look in r for r in regexps for look in ("(?=", "(?!", "(?<")), regexps
        pattern = re.compile("|".join([*(f"(?:{r})" for r in regexps), "(?s:.)"]))
        assert pattern.groups == 0, "findall gives whole tokens only without groups"
        #: the tokens of a text, as strings (the pattern has no groups)
        self.findall: Callable[[str], list[str]] = pattern.findall
        self.terminals = [(t.name, re.compile(r).fullmatch) for t, r in zip(terminals, regexps, strict=True)]
        self.skipped = frozenset([*lark.lexer_conf.ignore, STRAY])
        self.literals = {t.pattern.value: t.name for t in terminals if isinstance(t.pattern, PatternStr)}
        self.kinds: dict[str, str] = {}

    def kind(self, value: str) -> str:
        if len(self.kinds) > _KNOWN:
            self.kinds.clear()
        kind = self.kinds[value] = next((name for name, fullmatch in self.terminals if fullmatch(value)),
                                        STRAY)
        return kind


#: The lexer of a grammar, made once.
lexer_of = cache(Lexer)


def tokens(lark: Lark, text: str, strays: bool = False) -> list[Tok]:
    """The tokens of `text` with Lark's positions, ending in ``$END``; `Refused` where a
    character matches no terminal, or with `strays` that character as a token of its own
    (`STRAY`: an editor reads texts being written, which may hold anything)."""
    lexer = lexer_of(lark)
    kinds, kind_of, skipped = lexer.kinds, lexer.kind, lexer.skipped
    kept = STRAY if strays else ""
    result: list[Tok] = []
    append = result.append
    position, line, line_start = 0, 1, 0
    for value in lexer.findall(text):
        kind = kinds.get(value) or kind_of(value)
        end = position + len(value)
        if kind in skipped and kind != kept:
            if kind == STRAY:
                raise Refused
            if "\n" in value:
                line += value.count("\n")
                line_start = position + value.rfind("\n") + 1
        else:
            if "\n" in value:
                raise Refused  # no terminal of these grammars spans lines
            append(Tok(kind, value, line, position - line_start + 1, line, end - line_start + 1))
        position = end
    append(Tok("$END", "", line, 0, line, 0))
    return result


def _refuse(children: list[Any]) -> Any:
    """A builder method the grammar does not have (flat's `call`): never reached by a program."""
    raise Refused


def reader(lark: Lark, shape: CallShape) -> Callable[[str], Any]:
    """The fast reader of a text of `lark`'s grammar, shaped `shape`, building with `lark`'s
    transformer."""
    builder: Any = lark.options.transformer
    literals = lexer_of(lark).literals
    open_, comma, close = literals["("], literals[","], "CLOSE"
    nested, atom, ref = getattr(builder, "call", _refuse), builder.atom, getattr(builder, "ref", _refuse)
    statement_call = getattr(builder, shape.rule)
    assign_ = literals[shape.assign] if shape.assign else None
    end = literals[shape.end] if shape.end else None
    fewest, most = shape.statements

    def call(toks: list[Tok], i: int, build: Callable[[list[Any]], Any]) -> tuple[Any, int]:
        """A call at `i` (a NAME before "("); what `build` makes of it and the index after it."""
        children: list[Any] = [toks[i]]
        i += 2
        if toks[i].type != close:
            while True:
                tok = toks[i]
                kind = tok.type
                if kind == "NAME":
                    if toks[i + 1].type == open_:
                        node, i = call(toks, i, nested)
                        children.append(node)
                    else:
                        children.append(atom([tok]))
                        i += 1
                elif kind == "INT":
                    children.append(ref([tok]))
                    i += 1
                elif kind == "STRING":
                    children.append(atom([tok]))
                    i += 1
                else:
                    raise Refused
                if toks[i].type != comma:
                    break
                i += 1
        if toks[i].type != close:
            raise Refused
        children.append(toks[i])
        return build(children), i + 1

    def program(text: str) -> Any:
        """The statements of `text`, each a call (then the end token, where statements have
        one), a variable assigned a call, or a variable alone (the answer)."""
        toks = tokens(lark, text)
        statements: list[Any] = []
        i = 0
        while toks[i].type != "$END":
            tok = toks[i]
            if tok.type != "NAME" or len(statements) == most:
                raise Refused
            after = toks[i + 1].type
            if after == open_:
                node, i = call(toks, i, statement_call)
                if end is not None:
                    if toks[i].type != end:
                        raise Refused
                    i += 1
            elif assign_ is None:
                raise Refused
            elif after == assign_:
                if toks[i + 2].type != "NAME" or toks[i + 3].type != open_:
                    raise Refused
                node, i = call(toks, i + 2, nested)
                node = builder.assign([tok, node])
            else:
                node = builder.answer_var([tok])
                i += 1
            statements.append(node)
        if len(statements) < fewest:
            raise Refused
        return builder.start(statements)

    return program
