"""Flat ASP: one fact per step, operands referenced by step number, ending in ``end(N)``.

Step numbers are only names: parsing rebuilds the DAG (equal steps become one node) and
printing renumbers in post-order.

>>> print(print_program(parse(Source("scene(0). select(1, 0, car). exist(2, 1). end(2)."))))
scene(0).
select(1, 0, car).
exist(2, 1).
end(2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from lark import Lark, Token

from qlang.asp_names import from_term
from qlang.errors import Diagnostic, ParseError, Source, Span
from qlang.ir import MAX_DEPTH, Lit, Node
from qlang.jsontext import MAX_DIGITS
from qlang.passes.lower import Fact, text
from qlang.signatures import END
from qlang.syntax import descent, parsing
from qlang.syntax.descent import CallShape, Refused, Tok


class _Ref:
    """A step number as read, built for every one (compiled, a native class: built and read
    without a Python-level call); located only for an error."""

    __slots__ = ("step", "token")

    def __init__(self, step: int, token: Token | Tok) -> None:
        self.step = step
        self.token = token

    @property
    def span(self) -> Span:
        return parsing.span(self.token)


class _Fact:
    """A fact as read: its name, arguments (its step number first) and span."""

    __slots__ = ("args", "name", "span")

    def __init__(self, name: str, args: list[_Ref | Lit], span: Span) -> None:
        self.name = name
        self.args = args
        self.span = span


class _FlatBuilder(parsing.Builder):
    def ref(self, children: list[Token]) -> _Ref:
        return _Ref(parsing.step_number(children[0]), children[0])

    def atom(self, children: list[Token]) -> Lit:
        return parsing.literal(children[0])

    def fact(self, children: list[Any]) -> _Fact:
        name, *args, close = children
        return _Fact(name.value, args, parsing.span(name, close))

    def start(self, children: list[_Fact]) -> Node:
        return _Graph(children).build()


class _Graph:
    def __init__(self, facts: list[_Fact]) -> None:
        self.errors: list[Diagnostic] = []
        self.steps: dict[int, _Fact] = {}
        self.ends: list[_Fact] = []
        for fact in facts:
            self.add(fact)
        self.nodes: dict[int, Node] = {}
        self.building: set[int] = set()

    def fail(self, message: str, span: Span) -> None:
        self.errors.append(Diagnostic("reference", message, span))

    def add(self, fact: _Fact) -> None:
        if fact.name == END:
            if len(fact.args) == 1 and isinstance(fact.args[0], _Ref):
                self.ends.append(fact)
            else:
                self.fail("end takes exactly one argument, the answer's step number", fact.span)
            return
        if not fact.args or not isinstance(fact.args[0], _Ref):
            self.fail(f"{fact.name}: the first argument of a step is its step number", fact.span)
            return
        step = fact.args[0].step
        if step in self.steps:
            first = self.steps[step].span.line
            self.fail(f"step {step} is defined twice (first at line {first})", fact.args[0].span)
        self.steps[step] = fact

    def build(self) -> Node:
        if not self.ends and not self.errors:
            span = Span(1, 1, 1, 2)
            self.fail("no end(N) fact: the flat form names its answer step with end(N)", span)
        for extra in self.ends[1:]:
            self.fail("more than one end(N) fact", extra.span)
        root = None
        if self.ends and not self.errors:
            ref = self.ends[0].args[0]
            assert isinstance(ref, _Ref)
            root = self.node(ref, 0)
        if root is not None:
            for step, fact in self.steps.items():
                if step not in self.nodes:
                    self.fail(f"step {step} ({fact.name}) is never used: every step must lead to "
                              "the answer", fact.span)
        if self.errors or root is None:
            raise ParseError(self.errors)
        return root

    def node(self, ref: _Ref, depth: int) -> Node | None:
        if ref.step in self.nodes:
            return self.nodes[ref.step]
        fact = self.steps.get(ref.step)
        if fact is None:
            self.fail(f"step {ref.step} is not defined", ref.span)
            return None
        if ref.step in self.building:
            self.fail(f"step {ref.step} depends on itself", ref.span)
            return None
        if depth >= MAX_DEPTH:
            self.fail(f"steps nest deeper than {MAX_DEPTH}", fact.span)
            return None
        self.building.add(ref.step)
        args: list[Node | Lit] = []
        for arg in fact.args[1:]:
            operand = self.node(arg, depth + 1) if isinstance(arg, _Ref) else arg
            if operand is None:
                return None
            args.append(operand)
        self.building.discard(ref.step)
        node = self.nodes[ref.step] = Node(fact.name, tuple(args), fact.span)
        return node


# What `_reader`'s loop expects next: a fact's name, its "(", its first argument or ")", an
# argument, "," or ")", and the "." that ends it.
_NAME: Final = 0
_OPEN: Final = 1
_FIRST: Final = 2
_ARGUMENT: Final = 3
_AFTER: Final = 4
_DOT: Final = 5


def _reader(lark: Lark) -> Callable[[str], Node]:
    """The fast reader of flat programs: the descent's tokens (`descent.Lexer`), read by one loop
    that builds each fact as `_FlatBuilder` builds it, without a token object or a builder call
    per token (flat is the longest syntax: its reading was most of a flat compile).  Like the
    descent, it reads well-formed programs only and refuses anything else for Lark's parser to
    judge, and tests/test_fast_parse.py holds it to that parser."""
    lexer = descent.lexer_of(lark)
    kinds, kind_of, skipped, literals = lexer.kinds, lexer.kind, lexer.skipped, lexer.literals
    open_, comma, close, dot = literals["("], literals[","], "CLOSE", literals["."]
    stray, digits, span = descent.STRAY, MAX_DIGITS, tuple.__new__  # bound here: globals are looked up

    def read(text: str) -> Node:
        facts: list[_Fact] = []
        args: list[_Ref | Lit] = []
        expect, position, line, line_start = _NAME, 0, 1, 0
        name, name_line, name_column = "", 0, 0
        for value in lexer.findall(text):
            kind = kinds.get(value) or kind_of(value)
            start = position
            position += len(value)
            if kind in skipped:
                if kind == stray:
                    raise Refused
                if "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rfind("\n") + 1
                continue
            if "\n" in value:
                raise Refused  # no terminal of the grammar spans lines
            column = start - line_start + 1
            if kind == close and expect in (_FIRST, _AFTER):
                facts.append(_Fact(name, args, span(Span, (name_line, name_column, line, column + 1))))
                args, expect = [], _DOT
            elif expect in (_FIRST, _ARGUMENT):
                if kind == "INT":
                    if len(value) > digits:
                        raise Refused
                    token = Tok(kind, value, line, column, line, column + len(value))
                    args.append(_Ref(int(value), token))
                elif kind == "NAME" or kind == "STRING":
                    at = span(Span, (line, column, line, column + len(value)))
                    args.append(Lit(from_term(value), at))
                else:
                    raise Refused
                expect = _AFTER
            elif expect == _AFTER and kind == comma:
                expect = _ARGUMENT
            elif expect == _NAME and kind == "NAME":
                name, name_line, name_column, expect = value, line, column, _OPEN
            elif expect == _OPEN and kind == open_:
                expect = _FIRST
            elif expect == _DOT and kind == dot:
                expect = _NAME
            else:
                raise Refused
        if expect != _NAME:
            raise Refused
        return _Graph(facts).build()

    return read


#: Facts, each ended by ``.`` and numbered by its first argument; words and step numbers are
#: their only arguments.
SHAPE = CallShape(statements=(0, None), rule="fact", end=".", numbered=True)
GRAMMAR = parsing.Grammar("flat", _FlatBuilder, SHAPE, _reader)


def parse(source: Source) -> Node:
    root: Node = GRAMMAR.parse(source)
    return root


class _AsWritten(_FlatBuilder):
    def start(self, children: list[_Fact]) -> list[Fact]:  # type: ignore[override]
        return [Fact(f.name, tuple(a.step if isinstance(a, _Ref) else a.value for a in f.args))
                for f in children]


_AS_WRITTEN = parsing.Grammar("flat", _AsWritten, SHAPE)


def as_written(source: Source) -> list[Fact]:
    """The facts of a flat program with its own step numbers, equal steps kept apart (what the
    seed thesis solved); read it with `parse` first, which judges it."""
    written: list[Fact] = _AS_WRITTEN.parse(source)
    return written


def print_program(root: Node) -> str:
    return text(root)
