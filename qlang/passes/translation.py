"""What a translation's program goes through before the checker, whichever model wrote it (the
small parser's candidates, the fine-tuned and few-shot models' outputs): written in GQA's
categories (`categorise`), and refused where it names a direction its question never says
(`unsaid_direction`). Programs a user writes never pass through here."""

from __future__ import annotations

from qlang import ontology
from qlang.errors import CheckError, error
from qlang.ir import Node
from qlang.passes.categorise import categorise
from qlang.passes.unsaid import unsaid_direction


def settle(root: Node, question: str) -> Node:
    """`root` as GQA writes it, or a `CheckError` where it answers another question."""
    direction = unsaid_direction(root, question)
    if direction is not None:
        raise error(CheckError, "unsaid", f"the program says '{direction}', which the question never "
                    "says: it answers another question", root.span)
    return categorise(root, ontology.load())
