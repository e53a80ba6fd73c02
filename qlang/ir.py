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

from collections.abc import Callable
from typing import Final

from qlang.errors import Span
from qlang.signatures import SIGNATURES, Signature

#: The deepest program any syntax may build: deep enough for any real one (GQA's deepest is
#: under 20), shallow enough that recursive passes never come near Python's stack limit.
MAX_DEPTH = 200


#: Where a literal is written, found only when asked (`Lit.span`): a reader that would search
#: its text for every word locates one only for the error or the editor that needs it.
Locate = Callable[[], Span | None]


class Lit:
    """A literal word; equal to another of the same spelling wherever either was written."""

    __slots__ = ("_span", "value")

    def __init__(self, value: str, span: Span | Locate | None = None) -> None:
        self.value: Final = value
        self._span = span

    @property
    def span(self) -> Span | None:
        """Where the word is written (None: nowhere known)."""
        span = self._span
        if span is None or isinstance(span, Span):
            return span
        self._span = located = span()
        return located

    def __reduce__(self) -> tuple[type[Lit], tuple[str, Span | None]]:
        return Lit, (self.value, self.span)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lit):
            return self.value == other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Lit(value={self.value!r}, span={self.span!r})"

    def __str__(self) -> str:
        return self.value


class Node:
    """An operation applied to arguments.  Immutable (its attributes are `Final`); a plain slotted
    class rather than a frozen dataclass because every parse and pass builds many, and a frozen
    dataclass pays a generic `object.__setattr__` per field."""

    __slots__ = ("_hash", "args", "depth", "op", "operands", "size", "span")

    def __init__(self, op: str, args: tuple[Node | Lit, ...] = (), span: Span | None = None) -> None:
        self.op: Final = op
        self.args: Final = args
        self.span: Final = span
        operands = tuple([a for a in args if isinstance(a, Node)])
        #: the arguments that are operations, in order (kept: every pass walks them)
        self.operands: Final = operands
        if len(operands) == 1:  # most nodes: a shortcut worth its lines
            depth, size = operands[0].depth + 1, operands[0].size + 1
        elif operands:
            depth, size = 1 + max([a.depth for a in operands]), 1 + sum([a.size for a in operands])
        else:
            depth = size = 1
        #: operations on the longest path to a leaf, this one included
        self.depth: Final[int] = depth
        #: operations in the tree the DAG unfolds to (what the nested form writes out)
        self.size: Final[int] = size
        self._hash: Final = hash((op, args))

    def __reduce__(self) -> tuple[type[Node], tuple[str, tuple[Node | Lit, ...], Span | None]]:
        """Pickled as its parts, so that its hash is computed again by the process that
        unpickles it (string hashes differ between processes)."""
        return Node, (self.op, self.args, self.span)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Node):
            return NotImplemented
        return _equal(self, other)

    def __repr__(self) -> str:
        return f"Node(op={self.op!r}, args={self.args!r}, span={self.span!r})"

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



def asks_knowledge(root: Node) -> bool:
    """Whether `root` has a knowledge operation (`know`, `verify_know`, `infer`): one that reads
    the knowledge in use, which a GQA program never does."""
    return any((signature := node.signature) is not None and signature.knowledge for node in postorder(root))
