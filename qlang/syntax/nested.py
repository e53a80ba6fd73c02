"""Nested ASP: the program as one expression; shared results are written out at each use.

>>> print(print_program(parse(Source("query(unique(select(scene(), dish)), name)"))))
query(unique(select(scene(), dish)), name)
"""

from __future__ import annotations

from qlang.asp_names import to_term
from qlang.errors import Source
from qlang.ir import Lit, Node
from qlang.syntax import _lark


class _Builder(_lark.CallBuilder):
    def start(self, children: list[Node]) -> Node:
        return children[0]


def parse(source: Source) -> Node:
    root: Node = _lark.parse("nested", _Builder, source)
    return root


def print_expression(node: Node, names: dict[Node, str] | None = None) -> str:
    """`node` as a nested call; operands named in `names` print as those variables."""

    def arg(a: Node | Lit) -> str:
        if isinstance(a, Lit):
            return to_term(a.value)
        return names[a] if names and a in names else print_expression(a, names)

    return f"{node.op}({', '.join(arg(a) for a in node.args)})"


def print_program(root: Node) -> str:
    return print_expression(root)
