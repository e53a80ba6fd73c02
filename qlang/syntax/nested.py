"""Nested ASP: the program as one expression; shared results are written out at each use.

>>> print(print_program(parse(Source("query(unique(select(scene(), dish)), name)"))))
query(unique(select(scene(), dish)), name)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from lark import Lark

from qlang.asp_names import SPELLERS, from_term, to_term
from qlang.errors import Source, Span, UnsupportedOperation, error
from qlang.ir import Lit, Node
from qlang.syntax import descent
from qlang.syntax.descent import CallShape, Refused
from qlang.syntax.parsing import CallBuilder, Grammar


class _NestedBuilder(CallBuilder):
    def start(self, children: list[Node]) -> Node:
        return children[0]


class _Open:
    """A call being read: its name, where the name is written, and its arguments so far."""

    __slots__ = ("args", "column", "line", "name")

    def __init__(self, name: str, line: int, column: int) -> None:
        self.name = name
        self.line = line
        self.column = column
        self.args: list[Node | Lit] = []


# What `_reader`'s loop expects next: the program's call, a call's "(", its first argument or
# ")", an argument, "," or ")", and nothing (the program is read).  A name read as an argument
# is a call if "(" follows it, else a word: `_NAMED` holds it until the next token says which.
_CALL: Final = 0
_OPEN: Final = 1
_FIRST: Final = 2
_ARGUMENT: Final = 3
_AFTER: Final = 4
_DONE: Final = 5


def _reader(lark: Lark) -> Callable[[str], Node]:
    """The fast reader of nested programs: the descent's tokens (`descent.Lexer`), read by one
    loop over a stack of open calls that builds each node and word as `_NestedBuilder` builds
    it, without a token object or a builder call per token.  Like the descent, it reads
    well-formed programs only and refuses anything else for Lark's parser to judge, and
    tests/test_fast_parse.py holds it to that parser."""
    lexer = descent.lexer_of(lark)
    kinds, kind_of, skipped, literals = lexer.kinds, lexer.kind, lexer.skipped, lexer.literals
    open_, comma, close = literals["("], literals[","], "CLOSE"
    stray, span = descent.STRAY, tuple.__new__  # bound here: globals are looked up

    def read(text: str) -> Node:
        calls: list[_Open] = []
        root: Node | None = None
        expect, position, line, line_start = _CALL, 0, 1, 0
        named, named_line, named_column = "", 0, 0  # a name read as an argument, until we know
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
            if named:
                if kind == open_:
                    calls.append(_Open(named, named_line, named_column))
                    named, expect = "", _FIRST
                    continue
                at = span(Span, (named_line, named_column, named_line, named_column + len(named)))
                calls[-1].args.append(Lit(from_term(named), at))
                named = ""
            if kind == close and expect in (_FIRST, _AFTER):
                call = calls.pop()
                written = span(Span, (call.line, call.column, line, column + 1))
                node = Node(call.name, tuple(call.args), written)
                if calls:
                    calls[-1].args.append(node)
                    expect = _AFTER
                else:
                    root, expect = node, _DONE
            elif expect in (_FIRST, _ARGUMENT) and kind == "NAME":
                named, named_line, named_column, expect = value, line, column, _AFTER
            elif expect in (_FIRST, _ARGUMENT) and kind == "STRING":
                at = span(Span, (line, column, line, column + len(value)))
                calls[-1].args.append(Lit(from_term(value), at))
                expect = _AFTER
            elif expect == _AFTER and kind == comma:
                expect = _ARGUMENT
            elif expect == _CALL and kind == "NAME":
                calls.append(_Open(value, line, column))
                expect = _OPEN
            elif expect == _OPEN and kind == open_:
                expect = _FIRST
            else:
                raise Refused
        if root is None or named:
            raise Refused
        return root

    return read


#: One expression: a single call.
GRAMMAR = Grammar("nested", _NestedBuilder, CallShape(statements=(1, 1)), _reader)


def parse(source: Source) -> Node:
    root: Node = GRAMMAR.parse(source)
    return root


def print_expression(node: Node, names: dict[Node, str] | None = None) -> str:
    """`node` as a nested call; operands named in `names` print as those variables."""

    spell = SPELLERS.get(node.op, ())
    known = len(spell)
    args = [(spell[i](a.value) if i < known else to_term(a.value)) if isinstance(a, Lit)
            else names[a] if names and a in names else print_expression(a, names)
            for i, a in enumerate(node.args)]
    return f"{node.op}({', '.join(args)})"


#: The most operations a nested program is written out with: a DAG whose steps are each used
#: twice doubles in size per level, and 30 levels would be a billion calls.
MAX_SIZE = 10_000


def print_program(root: Node) -> str:
    if root.size > MAX_SIZE:
        raise error(UnsupportedOperation, "unsupported", f"written out, the nested form would "
                    f"repeat shared results into {root.size:,} operations (at most {MAX_SIZE:,})",
                    root.span, hint="use the code or flat syntax, which name shared results")
    return print_expression(root)
