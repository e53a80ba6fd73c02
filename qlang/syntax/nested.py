"""Nested ASP: the program as one expression; shared results are written out at each use.

>>> print(print_program(parse(Source("query(unique(select(scene(), dish)), name)"))))
query(unique(select(scene(), dish)), name)
"""

from __future__ import annotations

from qlang.asp_names import SPELLERS, to_term
from qlang.errors import Source, UnsupportedOperation, error
from qlang.ir import Lit, Node
from qlang.syntax.descent import CallShape
from qlang.syntax.parsing import CallBuilder, Grammar


class _NestedBuilder(CallBuilder):
    def start(self, children: list[Node]) -> Node:
        return children[0]


#: One expression: a single call.
GRAMMAR = Grammar("nested", _NestedBuilder, CallShape(statements=(1, 1)))


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
