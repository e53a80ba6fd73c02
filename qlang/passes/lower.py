"""Lowering: the IR as ASP facts, one per distinct node, ending in ``end(root)``.

Steps are numbered in post-order, so equal subtrees become one step and every step comes after
the steps it reads.  Every word goes through `to_term`, which only ever yields a plain constant
or a quoted string, so no program can inject ASP rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from qlang.asp_names import to_term
from qlang.ir import Lit, Node, postorder
from qlang.signatures import END


@dataclass(frozen=True, slots=True)
class Fact:
    name: str
    args: tuple[int | str, ...]

    def __str__(self) -> str:
        args = ", ".join(str(a) if isinstance(a, int) else to_term(a) for a in self.args)
        return f"{self.name}({args})."


def facts(root: Node) -> list[Fact]:
    """The flat facts of a program, without judging it (see `qlang.lower` for the checked path)."""
    order = postorder(root)
    step = {node: index for index, node in enumerate(order)}
    result = [
        Fact(node.op, (step[node], *(a.value if isinstance(a, Lit) else step[a] for a in node.args)))
        for node in order
    ]
    result.append(Fact(END, (step[root],)))
    return result
