"""Sharing: which nodes deserve a variable in the code-like form.

A node gets a variable exactly when its result has more than one consumer (seed thesis §3.3.3).
Nodes without operands (`scene()`) are exempt: naming them saves nothing.
"""

from __future__ import annotations

from collections import Counter

from qlang.ir import Node, postorder


def shared_nodes(root: Node) -> list[Node]:
    """Nodes used more than once, each after the shared nodes it depends on."""
    order = postorder(root)
    uses = Counter(operand for node in order for operand in node.operands)
    return [node for node in order if uses[node] > 1 and node.operands]
