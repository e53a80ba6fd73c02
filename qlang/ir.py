"""The typed IR every surface syntax parses into: a DAG of operation nodes.

A `Node` is an operation applied to arguments in source order; an argument is another node
(an operand) or a `Lit` (a literal word in its natural spelling, e.g. ``to the left of``).
Parsers build nodes without judging them, so that the checker can report every problem at
once; a node that passed the checker has its operands first and its literals after, as the
operation table says.

Equality is structural and ignores locations and step numbers, so two programs are equal
exactly when their DAGs unfold to the same tree.  Hashes are computed once per node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qlang.errors import Span
from qlang.signatures import SIGNATURES, Signature


@dataclass(frozen=True, slots=True)
class Lit:
    value: str
    span: Span | None = field(default=None, compare=False, hash=False)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    op: str
    args: tuple[Node | Lit, ...] = ()
    span: Span | None = field(default=None, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.op, self.args)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Node):
            return NotImplemented
        return self._hash == other._hash and self.op == other.op and self.args == other.args

    @property
    def signature(self) -> Signature | None:
        return SIGNATURES.get(self.op)

    @property
    def operands(self) -> tuple[Node, ...]:
        return tuple(a for a in self.args if isinstance(a, Node))

    @property
    def literals(self) -> tuple[str, ...]:
        return tuple(a.value for a in self.args if isinstance(a, Lit))

    def __str__(self) -> str:
        return f"{self.op}({', '.join(str(a) for a in self.args)})"


def op(name: str, *args: Node | str) -> Node:
    """Build a node tersely: ``op("select", op("scene"), "truck")``; strings become literals."""
    return Node(name, tuple(Lit(a) if isinstance(a, str) else a for a in args))


def postorder(root: Node) -> list[Node]:
    """Distinct nodes, each after its operands: the step order of the flat form."""
    seen: set[Node] = set()
    order: list[Node] = []

    def visit(node: Node) -> None:
        if node in seen:
            return
        seen.add(node)
        for operand in node.operands:
            visit(operand)
        order.append(node)

    visit(root)
    return order

