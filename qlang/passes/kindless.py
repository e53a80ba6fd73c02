"""An `infer` of a class nothing is a kind of: a program that answers nothing over any scene.

`infer(x, c)` answers with a word from which an ``is_a`` chain leads to `c` (theory/knowledge.lp),
in the knowledge in use or in GQA's class hierarchy (`qlang.asp.knowledge_facts`).  Where `c`
has no member in either, no scene has an answer.  The small parser writes such a program where
it copies a question's verb into infer's open class slot ("What drink might go with that
peanut?": `infer(select(scene(), peanut), go)` at 0.998); refused, the candidate gives way to
the next (`drink`).  The checker admits it: the decoding grammar and the automaton offer any
word the knowledge knows there, and every program they admit checks.

>>> from qlang.api import parse
>>> from qlang.knowledge.graph import Knowledge
>>> kindless(parse("infer(select(scene(), peanut), drink)"), Knowledge(())) is None  # GQA's
True
>>> kindless(parse("infer(select(scene(), peanut), peanut)"), Knowledge(())).literals
('peanut',)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qlang.ir import Node, postorder
from qlang.ontology import load

if TYPE_CHECKING:  # the knowledge store is opened only for a program that infers
    from qlang.knowledge.graph import Knowledge


def kindless(root: Node, knowledge: Knowledge | None) -> Node | None:
    """The first `infer` of `root` whose class nothing is a kind of (None: none), in
    `knowledge` (None: the bundled base) or GQA's hierarchy."""
    infers = [node for node in postorder(root) if node.op == "infer"]
    if not infers:
        return None
    if knowledge is None:
        from qlang.knowledge import sources

        knowledge = sources.knowledge([])
    members = load().class_members
    return next((node for node in infers if (cls := str(node.literals[0])) not in members
                 and not knowledge.edges([cls], into=True, relations=("is_a",), limit=1)), None)
