"""Code-like: nested ASP plus variables, introduced exactly where a result has several uses.

Variables are resolved by position: an identifier in an operand position names a variable, in
a literal position it is a word, so ``truck = unique(select(scene(), truck))`` reads right.

>>> print(print_program(parse(Source("v = unique(select(scene(), cat))\\ntwo_same(v, v, color)"))))
var1 = unique(select(scene(), cat))
two_same(var1, var1, color)
"""

from __future__ import annotations

from typing import Any

from lark import Token

from qlang.errors import Diagnostic, ParseError, Source, Span, shown
from qlang.ir import MAX_DEPTH, Lit, Node
from qlang.passes.share import shared_nodes
from qlang.syntax.descent import CallShape
from qlang.syntax.nested import print_expression
from qlang.syntax.parsing import CallBuilder, Grammar, literal


class _CodeBuilder(CallBuilder):
    def assign(self, children: list[Any]) -> tuple[Lit, Node]:
        return literal(children[0]), children[1]

    def answer_var(self, children: list[Token]) -> Lit:
        return literal(children[0])

    def start(self, statements: list[Any]) -> Node:
        return _Scope().resolve_program(statements)


class _Scope:
    def __init__(self) -> None:
        self.env: dict[str, tuple[Node, Span | None]] = {}
        self.errors: list[Diagnostic] = []

    def resolve_program(self, statements: list[Lit | Node | tuple[Lit, Node]]) -> Node:
        defined_later = {s[0].value for s in statements if isinstance(s, tuple)}
        root: Node | Lit | None = None
        for index, statement in enumerate(statements):
            last = index == len(statements) - 1
            if isinstance(statement, tuple):
                name, value = statement
                node = self.resolve(value, defined_later)
                if node.depth > MAX_DEPTH:
                    self.fail(f"variable {shown(name.value)} makes the program deeper than {MAX_DEPTH} "
                              "operations", name.span)
                    break
                if name.value in self.env:
                    first = self.env[name.value][1]
                    where = f" (first defined at line {first.line})" if first else ""
                    self.fail(f"variable {shown(name.value)} is defined twice{where}", name.span)
                self.env[name.value] = (node, name.span)
                root = node
            elif not last:
                self.fail("only the last statement may be the answer; assign this one to a variable",
                          statement.span)
            elif isinstance(statement, Lit):
                root = self.variable(statement, defined_later)
            else:
                root = self.resolve(statement, defined_later)
        if self.errors:
            raise ParseError(self.errors)
        assert isinstance(root, Node)  # a Lit root is an undefined variable, reported above
        return root

    def resolve(self, node: Node, defined_later: set[str]) -> Node:
        signature = node.signature
        operand_count = len(signature.operands) if signature else len(node.args)
        args = tuple(
            self.variable(a, defined_later) if isinstance(a, Lit) and i < operand_count
            else self.resolve(a, defined_later) if isinstance(a, Node) else a
            for i, a in enumerate(node.args)
        )
        return Node(node.op, args, node.span)

    def variable(self, name: Lit, defined_later: set[str]) -> Node | Lit:
        if name.value in self.env:
            return self.env[name.value][0]
        if name.value in defined_later:
            self.fail(f"variable {shown(name.value)} is used before it is defined", name.span)
        else:
            self.fail(f"undefined variable {shown(name.value)}; an operand must be an operation "
                      "or a variable", name.span)
        return name

    def fail(self, message: str, span: Span | None) -> None:
        self.errors.append(Diagnostic("reference", message, span))


#: Statements, each a call, a variable assigned a call, or (the answer) a variable alone.
GRAMMAR = Grammar("code", _CodeBuilder, CallShape(statements=(1, None), assign="="))


def parse(source: Source) -> Node:
    root: Node = GRAMMAR.parse(source)
    return root


def print_program(root: Node) -> str:
    names = {node: f"var{i}" for i, node in enumerate(shared_nodes(root), start=1)}
    lines = [f"{name} = {print_expression(node, names)}" for node, name in names.items()]
    return "\n".join([*lines, print_expression(root, names)])
