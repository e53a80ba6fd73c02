"""A relation cut short: a program that relates by `on` where its question says `sitting on`
answers another question.

Where a question says a relation that ends in a shorter one (``driving on``, ``standing in
front of``), GQA's program writes the one said: 568 of the 3,091 real questions in the shared
data say such a relation, their gold programs write it 592 times of 602, and its tail never,
unless the question says the tail on its own too.  The small parser writes the tail where the
question says the relation in the present ("the car that drives on the road": `on`, at
0.995), since GQA's questions almost always say it as the program writes it.  Refused, the
candidate gives way to the next, or to the fine-tuned model.

>>> from qlang.api import parse
>>> program = parse("exist(relate(select(scene(), road), car, on, subject))")
>>> shortened_relation(program, "Is there a car that drives on the road?")
('on', 'driving on')
>>> shortened_relation(program, "Is there a car driving on the road on the hill?") is None
True
"""

from __future__ import annotations

from qlang.ir import Node, postorder
from qlang.ontology import load
from qlang.phrases import said
from qlang.signatures import Kind


def shortened_relation(root: Node, question: str) -> tuple[str, str] | None:
    """The first relation of `root` that a relation its question says ends in, with that
    relation, where the program never writes the longer one nor the question says the shorter
    on its own (None: none)."""
    # a model's output may give an operation too few or too many literals: the checker refuses it
    written = {literal for node in postorder(root) if (signature := node.signature) is not None
               for literal, kind in zip(node.literals, signature.literals, strict=False) if kind is Kind.REL}
    if not written:
        return None
    relations = load().relations
    spoken = {phrase for phrase in said(question) if phrase in relations}
    return next(((short, long) for short in sorted(written - spoken) for long in sorted(spoken - written)
                 if long.endswith(f" {short}")), None)
