"""Canonicalisation: one node per distinct subtree, no locations; and the order-free normal form.

Two programs are the same program exactly when their canonical DAGs are equal; step numbers,
variable names and duplicated subtrees of the source make no difference.

>>> from qlang.ir import op
>>> cats = op("exist", op("select", op("scene"), "cat"))
>>> a = op("and", cats, op("exist", op("select", op("scene"), "cat")))
>>> c = canonicalize(a)
>>> c.operands[0] is c.operands[1]
True

Some order means nothing: the operands of a symmetric operation (`and`, `two_same`, ...) and a
choice's two alternatives, as the operation table marks them.  GQA's gold programs list a
choice's right answer first and order `and`'s branches at random, which no translator can read
from the question; `normalize` sorts them away, and `equivalent` compares programs that way.

>>> dog, cat = (op("exist", op("select", op("scene"), w)) for w in ("dog", "cat"))
>>> equivalent(op("and", dog, cat), op("and", cat, dog))
True
>>> canonicalize(op("and", dog, cat)) == canonicalize(op("and", cat, dog))
False
>>> pick = lambda a, b: op("choose_attr", op("unique", op("scene")), "color", a, b)
>>> equivalent(pick("red", "blue"), pick("blue", "red"))
True
"""

from __future__ import annotations

from qlang.ir import Lit, Node, postorder


def canonicalize(root: Node) -> Node:
    interned: dict[Node, Node] = {}
    for node in postorder(root):
        args = tuple(interned[a] if isinstance(a, Node) else Lit(a.value) for a in node.args)
        interned[node] = Node(node.op, args)
    return interned[root]


def normalize(root: Node) -> Node:
    """The canonical DAG with symmetric operands and a choice's alternatives in a fixed order.

    The order is that of a structural key built once per distinct node from its operands' keys
    (nested tuples that share those keys), so a shared subtree costs one key however often it
    is used, and comparing keys of shared subtrees stops at their identity.
    """
    interned: dict[Node, Node] = {}
    keys: dict[Node, tuple[object, ...]] = {}
    for node in postorder(root):
        args = [interned[a] if isinstance(a, Node) else Lit(a.value) for a in node.args]
        sig = node.signature
        if sig is not None and len(args) == sig.arity:
            operands, literals = args[:len(sig.operands)], args[len(sig.operands):]
            if sig.symmetric:
                operands.sort(key=lambda n: keys[n])  # type: ignore[index]
            if sig.alternatives:
                chosen = sorted((literals[i] for i in sig.alternatives), key=str)
                for position, literal in zip(sig.alternatives, chosen, strict=True):
                    literals[position] = literal
            args = operands + literals
        normal = Node(node.op, tuple(args))
        interned[node] = normal
        keys[normal] = (node.op, *((0, keys[a]) if isinstance(a, Node) else (1, a.value) for a in args))
    return interned[root]


def equivalent(a: Node, b: Node) -> bool:
    """Whether two programs mean the same up to the order of symmetric operands and choices."""
    return normalize(a) == normalize(b)
