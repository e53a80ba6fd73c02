"""Two values a question joins, one of them dropped: a program that filters by `pink` where its
question says "pink and red" answers another question.

Where a question joins two attribute values with "and" or "or" ("the plate that looks pink and
red", "Is the shirt white or black?"), GQA's program writes both: the 3,091 real questions in
the shared data join 344 such pairs, and their gold programs write both values of every one
(as do the training pairs, all 1,143 of them).  The small parser drops one where a pair is rare
("What is the food on the plate that looks pink and red?": `filter(color, pink)` alone, at
0.370), and the fine-tuned model prefers the shorter program.  Refused, the candidate gives way
to the next, or to the fine-tuned model.

>>> from qlang.api import parse
>>> pink = parse("query(unique(filter(select(scene(), plate), color, pink)), name)")
>>> dropped_value(pink, "What is on the plate that looks pink and red?")
('pink and red', 'red')
>>> dropped_value(pink, "What is on the pink plate near the red cup?") is None
True
"""

from __future__ import annotations

from functools import cache

from qlang.ir import Node, postorder
from qlang.ontology import load
from qlang.phrases import JOINTS, said


def dropped_value(root: Node, question: str) -> tuple[str, str] | None:
    """The first pair of values `question` joins (`pink and red`) of which `root` leaves one
    unwritten, with the value it leaves (None: none)."""
    joined = _joined_values(question)
    if not joined:
        return None
    written = {literal for node in postorder(root) for literal in node.literals}
    return next(((f"{first} {joint} {second}", value) for first, joint, second in joined
                 for value in (first, second) if value not in written), None)


def _joined_values(question: str) -> list[tuple[str, str, str]]:
    """The values `question` joins, each pair with its joint.  Words between that name nothing
    are skipped ("red and the blue")."""
    phrases, values = said(question), _values()
    return [(first, joint, second)
            for first, joint, second in zip(phrases, phrases[1:], phrases[2:], strict=False)
            if joint in JOINTS and first in values and second in values]


@cache
def _values() -> frozenset[str]:
    """The values that name nothing else: a word that is also a class or a relation ("on") may be
    said as one."""
    ontology = load()
    return frozenset(ontology.values - ontology.classes - ontology.relations)
