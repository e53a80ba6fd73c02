"""Canonicalisation: one node per distinct subtree, no locations.

Two programs are the same program exactly when their canonical DAGs are equal; step numbers,
variable names and duplicated subtrees of the source make no difference.

>>> from qlang.ir import op
>>> cats = op("exist", op("select", op("scene"), "cat"))
>>> a = op("and", cats, op("exist", op("select", op("scene"), "cat")))
>>> c = canonicalize(a)
>>> c.operands[0] is c.operands[1]
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
