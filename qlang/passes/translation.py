"""What a translation's program goes through before the checker, whichever model wrote it (the
small parser's candidates, the fine-tuned and few-shot models' outputs): written in GQA's
categories (`categorise`), and refused where it names a direction its question never says
(`unsaid_direction`), cuts short a relation its question says (`shortened_relation`), drops one of
two values its question joins (`dropped_value`) or infers a class nothing is a kind of
(`kindless`).  Programs a user writes never pass through here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qlang import ontology
from qlang.errors import CheckError, error
from qlang.ir import Node
from qlang.passes.categorise import categorise
from qlang.passes.kindless import kindless
from qlang.passes.paired import dropped_value
from qlang.passes.shortened import shortened_relation
from qlang.passes.unsaid import unsaid_direction

if TYPE_CHECKING:
    from qlang.knowledge.graph import Knowledge

#: the kinds of the errors `settle` raises: a program that parses and checks, refused for its question
REFUSALS = frozenset({"unsaid", "shortened", "dropped", "kindless"})


def settle(root: Node, question: str, knowledge: Knowledge | None = None) -> Node:
    """`root` as GQA writes it, or a `CheckError` where it answers another question or none
    (`knowledge`: the knowledge in use, None for the bundled base)."""
    direction = unsaid_direction(root, question)
    if direction is not None:
        raise error(CheckError, "unsaid", f"the program says '{direction}', which the question never "
                    "says: it answers another question", root.span)
    shortened = shortened_relation(root, question)
    if shortened is not None:
        raise error(CheckError, "shortened", f"the program relates by '{shortened[0]}' where the question "
                    f"says '{shortened[1]}': it answers another question", root.span)
    dropped = dropped_value(root, question)
    if dropped is not None:
        raise error(CheckError, "dropped", f"the question says '{dropped[0]}', but the program never "
                    f"writes '{dropped[1]}': it answers another question", root.span)
    infer = kindless(root, knowledge)
    if infer is not None:
        cls = infer.literals[0]
        raise error(CheckError, "kindless", f"the program infers a kind of '{cls}', but nothing in the "
                    f"knowledge is a kind of '{cls}': it answers nothing", infer.span or root.span)
    return categorise(root, ontology.load())
