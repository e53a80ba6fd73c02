"""The typed IR every surface syntax parses into: a DAG of operation nodes.

A `Node` is an operation applied to arguments in source order; an argument is another node
(an operand) or a `Lit` (a literal word in its natural spelling, e.g. ``to the left of``).
Parsers build nodes without judging them, so that the checker can report every problem at
once; a node that passed the checker has its operands first and its literals after, as the
operation table says.

Equality is structural and ignores locations and step numbers, so two programs are equal
exactly when their DAGs unfold to the same tree.  Hashes, depths and unfolded sizes are
computed once per node, from its operands', so no measure of a program ever recurses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qlang.errors import Span
from qlang.signatures import SIGNATURES, Signature

#: The deepest program any syntax may build: deep enough for any real one (GQA's deepest is
#: under 20), shallow enough that recursive passes never come near Python's stack limit.
MAX_DEPTH = 200


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
    #: operations on the longest path to a leaf, this one included
    depth: int = field(init=False, repr=False, compare=False)
    #: operations in the tree the DAG unfolds to (what the nested form writes out)
    size: int = field(init=False, repr=False, compare=False)
    #: the arguments that are operations, in order (kept: every pass walks them)
    operands: tuple[Node, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.op, self.args)))
        operands = tuple(a for a in self.args if isinstance(a, Node))
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "depth", 1 + max((a.depth for a in operands), default=0))
        object.__setattr__(self, "size", 1 + sum(a.size for a in operands))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Node):
            return NotImplemented
        return _equal(self, other)

    @property
    def signature(self) -> Signature | None:
        return SIGNATURES.get(self.op)

    @property
    def literals(self) -> tuple[str, ...]:
        return tuple(a.value for a in self.args if isinstance(a, Lit))

    def __str__(self) -> str:
        return f"{self.op}({', '.join(str(a) for a in self.args)})"


def _equal(a: Node, b: Node) -> bool:
    """Structural equality without recursion, each pair of nodes compared once: two equal DAGs
    whose steps are each used twice would otherwise unfold to exponentially many comparisons."""
    compared: set[tuple[int, int]] = set()
    pairs = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        if x is y or (id(x), id(y)) in compared:
            continue
        if x._hash != y._hash or x.op != y.op or len(x.args) != len(y.args):
            return False
        compared.add((id(x), id(y)))
        for p, q in zip(x.args, y.args, strict=True):
            if isinstance(p, Node) and isinstance(q, Node):
                pairs.append((p, q))
            elif isinstance(p, Node) or isinstance(q, Node) or p != q:
                return False
    return True


def op(name: str, *args: Node | str) -> Node:
    """Build a node tersely: ``op("select", op("scene"), "truck")``; strings become literals."""
    return Node(name, tuple(Lit(a) if isinstance(a, str) else a for a in args))


def postorder(root: Node) -> list[Node]:
    """Distinct nodes, each after its operands: the step order of the flat form."""
    seen: set[Node] = {root}
    order: list[Node] = []
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, next_operand = stack.pop()
        operands = node.operands
        if next_operand == len(operands):
            order.append(node)
            continue
        stack.append((node, next_operand + 1))
        operand = operands[next_operand]
        if operand not in seen:
            seen.add(operand)
            stack.append((operand, 0))
    return order

