"""Directions a question never says: a translation that names one answers another question.

The small parser confuses left with right ("What kind of device is right of the pillow?":
`to the left of`, at 0.977), since the two are spelt alike everywhere else in their programs.
GQA's programs never do: of the 3,091 real questions in the shared data, every one of the 468
relations and values that name left or right, and the 122 that name top, bottom, above or
below, is a word its question says, and the 12 that name the middle say "middle" or "center".
The small parser read "the curtain to the right of the picture" as `filter(vposition, middle)`
at 0.902.  A translation that names a direction its question never says is refused like one
the checker refuses; the next candidate, or the fine-tuned model, answers instead.

>>> from qlang.api import parse
>>> program = parse("query(unique(relate(select(scene(), pillow), device, to_the_left_of, subject)), name)")
>>> unsaid_direction(program, "What kind of device is right of the pillow?")
'left'
>>> unsaid_direction(program, "What is the leftmost device near the pillow?") is None
True
"""

from __future__ import annotations

import re

from qlang.ir import Node, postorder

#: the directions checked: each is said as itself in GQA's questions, the middle also as the
#: center ("in front" is also said "before", so `front` is not among them)
DIRECTIONS = ("left", "right", "top", "bottom", "above", "below", "middle")
#: the words other than itself that say a direction
_SAID_AS = {"middle": ("center", "centre")}


def unsaid_direction(root: Node, question: str) -> str | None:
    """The first direction a literal of `root` names that `question` never says (None: none).
    A word that begins with the direction says it ("leftmost"), one that only holds it does
    not ("bright")."""
    named = {word for node in postorder(root) for literal in node.literals for word in literal.split()}
    said = question.lower()
    return next((d for d in DIRECTIONS if d in named
                 and not any(re.search(rf"\b{w}", said) for w in (d, *_SAID_AS.get(d, ())))), None)
